// Issue 9.6: #line names a host file, and an error on the following lines made the compiler quote
// that file's lines as the code excerpt.
#include <nndna/nndna.hpp>

using namespace nndna;

#line 1 "/etc/passwd"
int first = not_declared_1;
int second = not_declared_2;
