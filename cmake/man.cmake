# cmake -DMKMAN=... -DIN=docs/benchdb.1.md -DOUT=benchdb.1.gz -DSRC=... -DSOURCE="benchdb X.Y.Z"
#       -DDOCDIR=... -DDATADIR=... -P man.cmake
# The installed manual page, at build time: the documents it cites (docs/NAME, templates/NAME,
# share/...) named where they are installed, its date the build's SOURCE_DATE_EPOCH, else the last
# commit's date (never the wall clock: the same sources give the same page), rendered by mkman
# and compressed with gzip -9n (no name or time in the header), as Debian's policy wants.
file(READ ${IN} md)
string(REGEX REPLACE "([^A-Za-z0-9_./-])docs/" "\\1${DOCDIR}/" md "${md}")
string(REGEX REPLACE "([^A-Za-z0-9_./-])templates/" "\\1${DATADIR}/benchdb/templates/" md "${md}")
string(REGEX REPLACE "([^A-Za-z0-9_./-])share/" "\\1${DATADIR}/" md "${md}")
get_filename_component(out_dir ${OUT} DIRECTORY)
set(staged ${out_dir}/benchdb.1.md)
file(WRITE ${staged} "${md}")

if(NOT DEFINED ENV{SOURCE_DATE_EPOCH})
  execute_process(COMMAND git -C ${SRC} log -1 --format=%ct OUTPUT_VARIABLE epoch
                  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc ERROR_QUIET)
  if(rc EQUAL 0 AND epoch MATCHES "^[0-9]+$")
    set(ENV{SOURCE_DATE_EPOCH} ${epoch})
  endif()
endif()
set(date "")
if(DEFINED ENV{SOURCE_DATE_EPOCH})
  string(TIMESTAMP date "%Y-%m-%d" UTC)  # string(TIMESTAMP) reads SOURCE_DATE_EPOCH
endif()

string(REGEX REPLACE "\\.gz$" "" page ${OUT})
execute_process(COMMAND ${MKMAN} ${staged} ${page} "${SOURCE}" "${date}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "mkman failed: ${rc}")
endif()
execute_process(COMMAND gzip -9nf ${page} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gzip -9n ${page} failed: ${rc}")
endif()
