# cmake -DIN=file -DOUT=file.inc -P EmbedText.cmake: writes IN's text as a C++
# raw string literal, for #include as an initializer.
file(READ ${IN} text)
file(WRITE ${OUT} "R\"kilnembed(${text})kilnembed\"\n")
