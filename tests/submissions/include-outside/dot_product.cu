// Hostile: includes a file outside the tree, so that the compiler's errors
// quote its words to the student.
#include "@SECRET@"
