# cmake -DINPUT=file -DOUTPUT=file.c -DNAME=symbol -P embed_text.cmake
# Turns a text file into `const char NAME[]` (NUL-terminated) at build time,
# so that the page's script and stylesheet are part of the binary and the
# page needs nothing from anywhere (host/analysis/view_page.c).
file(READ "${INPUT}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n"
  bytes "${bytes}")
get_filename_component(from "${INPUT}" NAME)
file(WRITE "${OUTPUT}.tmp" "/* Made from ${from} by embed_text.cmake at build time; do not edit. */\n"
  "const char ${NAME}[] = {\n${bytes}0x00};\n")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
