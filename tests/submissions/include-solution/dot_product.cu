// Hostile: hands in the reference solution by including it from the
// instructor's tree, by a path relative to the contract header's folder.
#include "../../solutions/01-dot-product/dot_product.cu"
