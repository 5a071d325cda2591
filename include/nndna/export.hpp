// What nndna's shared libraries export. They are built with hidden visibility: only what a public
// header marks with these is part of a library's interface, so internal functions are neither
// exported nor interposable, and the libraries load and call faster.
#pragma once

// One declaration (a function, a class, a variable) of the interface.
#define NNDNA_API __attribute__((visibility("default")))

// Everything declared between the two: for headers that are interface from top to bottom.
#define NNDNA_API_BEGIN _Pragma("GCC visibility push(default)")
#define NNDNA_API_END _Pragma("GCC visibility pop")
