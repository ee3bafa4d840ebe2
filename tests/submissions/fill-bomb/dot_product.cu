// Hostile: an object file of 300 MB, to fill the grader's disk.
asm(".fill 300000000, 1, 0");
