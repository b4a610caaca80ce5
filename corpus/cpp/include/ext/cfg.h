// Build configuration for the cpp corpus kernels, found through -I (corpus/cpp/include).
#ifndef EXT_CFG_H
#define EXT_CFG_H

// Width of the tiles a block splits its 64-element row into.
#define TILE 32

// Bumped when the layout changes.
#define CFG_LAYOUT_VERSION 3

#endif
