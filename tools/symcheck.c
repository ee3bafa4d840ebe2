/* pp-symcheck: refuses a compiled lab file that uses what a submission must not.
 *
 *   pp-symcheck --allow LIST [--verdict FILE] OBJECT...
 *
 * Reads the objects' symbols (nm) and disassembly (objdump) and checks them
 * against LIST (grading/allowed-symbols.txt explains its lines): every
 * undefined symbol must be allowed, no symbol may be denied, no instruction
 * may enter the kernel, and exit may only appear in nvcc's never-run host
 * copies of __device__ functions. Exits 0 when clean, 1 when refused (each
 * reason printed), 2 on bad usage or when nm/objdump cannot read an object.
 * With --verdict it also writes "status pass|fail" and one "note" per reason.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PASS = 0, FAIL = 1, USAGE = 2 };
#define MAX_PATTERNS 256
#define MAX_FUNCTIONS 4096
#define MAX_REFS 64
#define MAX_REASONS 32

typedef struct function {
  char name[256];
  char section[64];       /* where it lies, for references made by section and offset */
  unsigned long start;
  char refs[MAX_REFS][128]; /* symbols it calls or addresses, itself excluded */
  int ref_count;
} function;

static char *allowed[MAX_PATTERNS], *denied[MAX_PATTERNS];
static int allowed_count, denied_count;
static function functions[MAX_FUNCTIONS];
static int function_count;
static char reasons[MAX_REASONS][256];
static int reason_count;

static void refuse(const char *format, const char *what) {
  char line[256];
  snprintf(line, sizeof line, format, what);
  for (int i = 0; i < reason_count; ++i)
    if (!strcmp(reasons[i], line)) return; /* once per reason */
  if (reason_count == MAX_REASONS) return;
  printf("refused: %s\n", line);
  snprintf(reasons[reason_count++], sizeof *reasons, "%s", line);
}

/* The first of @p patterns that @p name matches, or NULL. */
static const char *match(char **patterns, int count, const char *name) {
  for (int i = 0; i < count; ++i)
    if (!fnmatch(patterns[i], name, 0)) return patterns[i];
  return NULL;
}

static int read_list(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "error: cannot read the allow-list %s\n", path);
    return USAGE;
  }
  char line[512], word[16], pattern[256];
  for (int number = 1; fgets(line, sizeof line, f); ++number) {
    if (sscanf(line, "%15s", word) != 1 || word[0] == '#') continue;
    int is_allow = !strcmp(word, "allow");
    if ((!is_allow && strcmp(word, "deny")) || sscanf(line, "%*s %255s", pattern) != 1 ||
        (is_allow ? allowed_count : denied_count) == MAX_PATTERNS) {
      fprintf(stderr, "error: %s:%d: expected 'allow PATTERN' or 'deny PATTERN'\n", path, number);
      fclose(f);
      return USAGE;
    }
    if (is_allow)
      allowed[allowed_count++] = strdup(pattern);
    else
      denied[denied_count++] = strdup(pattern);
  }
  fclose(f);
  return PASS;
}

static FILE *run_tool(const char *tool, const char *object) {
  char command[4096];
  if (strchr(object, '\'')) return NULL;
  snprintf(command, sizeof command, "%s '%s' 2>/dev/null", tool, object);
  return popen(command, "r");
}

/* nm -P: "name type [value size]"; type U is undefined. */
static int check_symbols(const char *object) {
  FILE *nm = run_tool("nm -P", object);
  if (!nm) return USAGE;
  char line[1024], name[512], type[8];
  while (fgets(line, sizeof line, nm)) {
    if (sscanf(line, "%511s %7s", name, type) != 2) continue;
    const char *library = match(denied, denied_count, name);
    if (library)
      refuse("contains library code (symbols matching %s): the library peers belong to the grader; write your own kernel", library);
    else if (!strcmp(type, "U") && strcmp(name, "exit") && !match(allowed, allowed_count, name))
      refuse("calls %s, which a lab file may not use (grading/allowed-symbols.txt lists what it may)", name);
  }
  return pclose(nm) ? USAGE : PASS;
}

/* Static functions are often referenced as "<section>+0x<offset>": finds the
 * function at that place, or returns @p ref unchanged. */
static const char *resolve(const char *ref) {
  char section[64];
  unsigned long offset;
  if (ref[0] != '.' || sscanf(ref, "%63[^+]+%lx", section, &offset) != 2) return ref;
  const function *best = NULL;
  for (int i = 0; i < function_count; ++i) {
    const function *f = &functions[i];
    if (!strcmp(f->section, section) && f->start <= offset && (!best || f->start > best->start)) best = f;
  }
  return best ? best->name : ref;
}

/* Records what @p text names ("sym", "sym-0x4", ".text+0x1c"); a
 * PC-relative reference to a place counts from the end of its 4-byte field. */
static void add_ref(function *f, const char *text, int pc_relative) {
  char name[128];
  size_t n = strcspn(text, " \t\n>");
  if (n == 0 || n >= sizeof name) return;
  memcpy(name, text, n);
  name[n] = '\0';
  unsigned long offset = 0;
  char *plus = strchr(name, '+');
  if (name[0] == '.') { /* a place: the section alone is its offset 0 */
    if (plus) sscanf(plus + 1, "%lx", &offset);
    plus = plus ? plus : name + strlen(name);
    snprintf(plus, sizeof name - (size_t)(plus - name), "+%lx", offset + (pc_relative ? 4 : 0));
  } else {
    name[strcspn(name, "+-")] = '\0';
  }
  if (!strcmp(name, f->name)) return;
  for (int i = 0; i < f->ref_count; ++i)
    if (!strcmp(f->refs[i], name)) return;
  if (f->ref_count < MAX_REFS) snprintf(f->refs[f->ref_count++], sizeof *f->refs, "%s", name);
}

/* objdump -dr -w: "<addr> <name>:" starts a function; "R_..." lines are
 * relocations; "<target>" in an instruction names what it calls or jumps to. */
static int read_functions(const char *object) {
  FILE *dump = run_tool("objdump -dr --no-show-raw-insn -w", object);
  if (!dump) return USAGE;
  char line[2048], section[64] = "";
  function *current = NULL;
  while (fgets(line, sizeof line, dump)) {
    char *open = strchr(line, '<');
    if (sscanf(line, "Disassembly of section %63[^:]:", section) == 1) continue;
    if (isxdigit((unsigned char)line[0]) && open && strstr(line, ">:")) {
      if (function_count == MAX_FUNCTIONS) break;
      current = &functions[function_count++];
      memset(current, 0, sizeof *current);
      size_t n = strcspn(open + 1, ">");
      snprintf(current->name, sizeof current->name, "%.*s", (int)n, open + 1);
      snprintf(current->section, sizeof current->section, "%s", section);
      current->start = strtoul(line, NULL, 16);
      continue;
    }
    if (!current) continue;
    char *reloc = strstr(line, "R_X86_64_");
    if (!reloc) reloc = strstr(line, "R_AARCH64_");
    if (reloc) {
      int pc_relative = strstr(reloc, "PC32") || strstr(reloc, "PLT32");
      reloc += strcspn(reloc, " \t");
      add_ref(current, reloc + strspn(reloc, " \t"), pc_relative);
      continue;
    }
    char *tab = strchr(line, '\t'); /* "addr:\tmnemonic operands" */
    if (!tab) continue;
    char mnemonic[32] = "";
    sscanf(tab + 1, "%31s", mnemonic);
    if (!strcmp(mnemonic, "syscall") || !strcmp(mnemonic, "sysenter") || !strcmp(mnemonic, "svc") ||
        (!strcmp(mnemonic, "int") && strstr(tab, "$0x80")))
      refuse("%s enters the kernel directly: a lab file may only compute and launch", current->name);
    if (open && open[1] != '.') add_ref(current, open + 1, 0);
  }
  return pclose(dump) ? USAGE : PASS;
}

/* nvcc's host copy of a __device__ function calls exit and nothing else; the
 * host compiler may fold identical copies into one that the others call. */
static int stub[MAX_FUNCTIONS];

static int is_stub_name(const char *ref) {
  const char *name = resolve(ref);
  if (!strcmp(name, "exit")) return 1;
  for (int j = 0; j < function_count; ++j)
    if (stub[j] && !strcmp(functions[j].name, name)) return 1;
  return 0;
}

static void find_stubs(void) {
  for (int i = 0; i < function_count; ++i) stub[i] = 1;
  for (int changed = 1; changed;) { /* the largest set closed under "refers only to exit or a stub" */
    changed = 0;
    for (int i = 0; i < function_count; ++i) {
      if (!stub[i]) continue;
      int only_stubs = functions[i].ref_count > 0;
      for (int r = 0; r < functions[i].ref_count && only_stubs; ++r)
        only_stubs = is_stub_name(functions[i].refs[r]);
      if (!only_stubs) stub[i] = 0, changed = 1;
    }
  }
}

/* Sections where a program keeps pointers it may call (not unwind or debug tables). */
static int holds_pointers(const char *section) {
  static const char *const kinds[] = {".data", ".rodata", ".init_array", ".fini_array", ".ctors", ".dtors"};
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; ++i)
    if (!strncmp(section, kinds[i], strlen(kinds[i]))) return 1;
  return 0;
}

/* Code that is not such a copy must not reach exit, nor may data point at a copy. */
static int check_exit(const char *object) {
  find_stubs();
  for (int i = 0; i < function_count; ++i)
    for (int r = 0; r < functions[i].ref_count && !stub[i]; ++r)
      if (is_stub_name(functions[i].refs[r]))
        refuse("%s ends the process (exit): only the grader decides when it stops", functions[i].name);
  /* Data (a variant table) may not point at such a function either. */
  FILE *relocations = run_tool("objdump -r -w", object);
  if (!relocations) return USAGE;
  char line[1024], section[256] = "", offset[64], type[64], value[512];
  while (fgets(line, sizeof line, relocations)) {
    if (sscanf(line, "RELOCATION RECORDS FOR [%255[^]]]", section) == 1) continue;
    if (holds_pointers(section) && sscanf(line, "%63s %63s %511s", offset, type, value) == 3) {
      function holder = {.ref_count = 0};
      add_ref(&holder, value, strstr(type, "PC32") != NULL);
      if (holder.ref_count && is_stub_name(holder.refs[0]))
        refuse("data in the file points at %s, which ends the process (exit)", resolve(holder.refs[0]));
    }
  }
  return pclose(relocations) ? USAGE : PASS;
}

static int write_verdict(const char *path, int status) {
  char part[4096];
  snprintf(part, sizeof part, "%s.part", path);
  FILE *f = fopen(part, "w");
  if (!f) return USAGE;
  fprintf(f, "status %s\n", status == PASS ? "pass" : status == FAIL ? "fail" : "error");
  for (int i = 0; i < reason_count; ++i) fprintf(f, "note %s\n", reasons[i]);
  return fclose(f) || rename(part, path) ? USAGE : status;
}

int main(int argc, char **argv) {
  const char *list = NULL, *verdict = NULL;
  int arg = 1;
  for (; arg + 1 < argc && argv[arg][0] == '-'; arg += 2) {
    if (!strcmp(argv[arg], "--allow"))
      list = argv[arg + 1];
    else if (!strcmp(argv[arg], "--verdict"))
      verdict = argv[arg + 1];
    else
      break;
  }
  if (!list || arg >= argc) {
    fprintf(stderr, "usage: %s --allow LIST [--verdict FILE] OBJECT...\n", argv[0]);
    return USAGE;
  }
  int status = read_list(list);
  for (; arg < argc && status == PASS; ++arg) {
    function_count = 0;
    status = check_symbols(argv[arg]);
    if (status == PASS) status = read_functions(argv[arg]);
    if (status == PASS) status = check_exit(argv[arg]);
    if (status != PASS) fprintf(stderr, "error: cannot read the object %s with nm/objdump\n", argv[arg]);
  }
  if (status == PASS) status = reason_count ? FAIL : PASS;
  if (status == PASS) printf("clean: every symbol is on the allow-list\n");
  return verdict ? write_verdict(verdict, status) : status;
}
