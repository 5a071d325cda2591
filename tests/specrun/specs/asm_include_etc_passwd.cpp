// Issue 9.6: the assembler includes a host file and complains about each of its lines.
#include <nndna/nndna.hpp>

asm(".include \"/etc/passwd\"");
