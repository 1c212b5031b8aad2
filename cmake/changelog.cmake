# cmake -DOUT=changelog.gz -DSRC=... -DVERSION=X.Y.Z -DMAINTAINER="..." -P changelog.cmake
# The .deb's changelog (Debian's changelog format, one entry for the version built), dated
# SOURCE_DATE_EPOCH, else the last commit's date (never the wall clock), compressed with
# gzip -9n as Debian's policy wants for /usr/share/doc/PACKAGE/changelog.gz.
if(NOT DEFINED ENV{SOURCE_DATE_EPOCH})
  execute_process(COMMAND git -C ${SRC} log -1 --format=%ct OUTPUT_VARIABLE epoch
                  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc ERROR_QUIET)
  if(NOT rc EQUAL 0 OR NOT epoch MATCHES "^[0-9]+$")
    set(epoch 0)
  endif()
  set(ENV{SOURCE_DATE_EPOCH} ${epoch})
endif()
string(TIMESTAMP date "%a, %d %b %Y %H:%M:%S +0000" UTC)
string(REGEX REPLACE "\\.gz$" "" text ${OUT})
file(WRITE ${text} "benchdb (${VERSION}) unstable; urgency=medium

  * benchdb ${VERSION}, packaged by CPack from the repository's sources
    (the project's history is its git log).

 -- ${MAINTAINER}  ${date}
")
execute_process(COMMAND gzip -9nf ${text} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip -9n ${text} failed: ${rc}")
endif()
