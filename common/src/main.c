/* The one main() of every lab runner: the lab's grader defines pp_lab. */
#include "pp/lab.h"

extern const pp_problem pp_lab;

int main(int argc, char **argv) {
  return pp_main(&pp_lab, argc, argv);
}
