// Issue 9.6: the assembler includes a long file it can read (a system header, visible in the
// sandbox): one error per line, which the message must trim like the compiler's errors.
#include <nndna/nndna.hpp>

asm(".include \"/usr/include/stdio.h\"");
