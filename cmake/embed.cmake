# cmake -DIN=file -DOUT=file.c -DNAME=ident -P embed.cmake: a file as a C byte array.
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR size "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE ${OUT} "#include <stddef.h>\nconst unsigned char ${NAME}[] = {${bytes}0x00};\nconst size_t ${NAME}_len = ${size};\n")
