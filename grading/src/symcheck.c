/* pp-symcheck: refuses a compiled lab file that uses what a submission must not.
 *
 *   pp-symcheck [--allow LIST] [--sections LIST] [--contract HEADER] [--verdict FILE] OBJECT...
 *
 * With --sections (grading/allowed-sections.txt), every section of each object
 * (readelf -S) must match an "allow PATTERN" line of LIST, or hold the
 * relocations (".rela" + name) of one that does: a lab file holds only what
 * nvcc and its host compiler emit, and not, say, GCC's LTO bytecode
 * (.gnu.lto_*), on which the linker would run the compiler. grading/sandbox
 * runs this check on the object before it leaves the compile's sandbox.
 * With --allow, it reads the objects' symbols (nm), disassembly and
 * relocations (objdump) and checks them against LIST
 * (grading/allowed-symbols.txt explains its lines):
 * every undefined symbol, weak ones included, must be allowed, no symbol may be
 * denied, no instruction may enter the kernel, and exit may only appear in
 * nvcc's never-run host copies of __device__ functions, which no other code
 * calls and no data (in any section but unwind and debug tables) points at.
 * It fails closed: it keeps every symbol and reference, whatever their number
 * and the length of their names, and it refuses an object that readelf, nm or
 * objdump cannot read or complain about, that is not x86-64 or AArch64 code, or
 * whose listings hold a line or a name it cannot parse, or do not list every
 * section.
 * And an object may define no external symbol (global or weak) but the names
 * HEADER, the lab's contract, declares extern (its variant table and count),
 * its kernels (nvcc's host functions that launch them, and their stubs) and
 * nvcc's host copies of its __device__ functions: a definition of any other
 * name (cudaEventElapsedTime, a harness function, malloc, operator new) would
 * replace the real one wherever the runner calls it, the harness's timer and
 * checks included. Names local to the file (static) are its own business.
 * Exits 0 when clean, 1 when refused (each reason printed), 2 on bad usage: the
 * arguments, an allow-list or the contract, an object that is not a readable
 * file, readelf, nm or objdump missing. With --verdict it also writes
 * "status pass|fail|error" and one "note" per reason.
 */
#define _POSIX_C_SOURCE 200809L
#include <fnmatch.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "listing.h"

enum { PASS = 0, FAIL = 1, USAGE = 2 };

#define HEX "0123456789abcdefABCDEF"
#define BLANKS " \t" /* what separates the fields of a line */

typedef struct strings {
  char **at;
  size_t count, capacity;
} strings;

static void append(strings *list, char *s) {
  list->at = pp_grow(list->at, &list->count, &list->capacity, sizeof *list->at);
  list->at[list->count - 1] = s;
}

static int contains(const strings *list, const char *s) {
  for (size_t i = 0; i < list->count; ++i)
    if (!strcmp(list->at[i], s)) return 1;
  return 0;
}

static void clear(strings *list) {
  for (size_t i = 0; i < list->count; ++i) free(list->at[i]);
  free(list->at);
  memset(list, 0, sizeof *list);
}

/* What code or data names: a symbol, or a place in a section (objdump writes
 * "name", "name+0x1c" or "name-0x4"), plus an offset. */
typedef struct reference {
  char *name;
  long offset;
  long to; /* what it leads to, once the code is read: see resolve() */
} reference;

typedef struct function {
  char *name;
  const char *section; /* one of code_sections */
  unsigned long start;
  reference *refs; /* what it calls or addresses */
  size_t ref_count, ref_capacity;
  int stub; /* nvcc's host copy of a __device__ function, see find_stubs() */
} function;

static strings allowed, denied, reasons;
static strings contract; /* the names the contract header declares extern */
static strings defined;  /* the object's external definitions, each "TYPE NAME" (nm's letter) */
static int format_seen;    /* whether objdump's format line was read */
static const char *object; /* the object being checked */
/* The object's code: its sections and functions, as objdump -d lists them. */
static strings code_sections;
static function *functions;
static size_t function_count, function_capacity;

static void refuse(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* Prints a reason for refusing, once, and keeps it for the verdict. */
static void refuse(const char *format, ...) {
  va_list args, again;
  va_start(args, format);
  va_copy(again, args);
  int n = vsnprintf(NULL, 0, format, args);
  va_end(args);
  char *line = pp_checked(malloc(n > 0 ? (size_t)n + 1 : 1));
  line[0] = '\0';
  if (n > 0) vsnprintf(line, (size_t)n + 1, format, again);
  va_end(again);
  if (contains(&reasons, line)) {
    free(line);
    return;
  }
  printf("refused: %s\n", line);
  append(&reasons, line);
}

/* The first of @p patterns that @p name matches, or NULL. */
static const char *match(const strings *patterns, const char *name) {
  for (size_t i = 0; i < patterns->count; ++i)
    if (!fnmatch(patterns->at[i], name, 0)) return patterns->at[i];
  return NULL;
}

/* Reads the lines "allow PATTERN" of @p path into @p allow and, where @p deny
 * is not NULL, "deny PATTERN" into @p deny; '#' begins a comment line. */
static int read_list(const char *path, strings *allow, strings *deny) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "error: cannot read the allow-list %s\n", path);
    return USAGE;
  }
  char *line = NULL, *field[2];
  size_t capacity = 0;
  int status = PASS, number = 0;
  while (status == PASS && getline(&line, &capacity, f) >= 0) {
    ++number;
    line[strcspn(line, "\r\n")] = '\0';
    size_t n = pp_split(line, BLANKS, field, 2);
    if (n == 0 || field[0][0] == '#') continue;
    int is_allow = !strcmp(field[0], "allow");
    if (n != 2 || (!is_allow && (!deny || strcmp(field[0], "deny")))) {
      fprintf(stderr, "error: %s:%d: expected 'allow PATTERN'%s\n", path, number,
              deny ? " or 'deny PATTERN'" : "");
      status = USAGE;
    } else {
      append(is_allow ? allow : deny, pp_copy_of(field[1], strlen(field[1])));
    }
  }
  free(line);
  fclose(f);
  return status;
}

/* Reads the names the contract header declares extern: in each statement
 * (up to ';') that begins with "extern" and is no linkage block, the name
 * before its first '[' or, if none, its first '(' or the ';'
 * ("extern const dot_variant dot_variants[];", "extern const int dot_variant_count;").
 * The header is the instructor's; one with no such name is refused. */
static int read_contract(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "error: cannot read the contract %s\n", path);
    return USAGE;
  }
  char *line = NULL;
  size_t capacity = 0;
  while (getline(&line, &capacity, f) >= 0) {
    char *start = line + strspn(line, " \t");
    char *semicolon = strchr(start, ';');
    if (strncmp(start, "extern ", 7) || strchr(start, '"') || !semicolon) continue;
    *semicolon = '\0';
    char *end = strchr(start, '[');
    if (!end) end = strchr(start, '(');
    if (!end) end = semicolon;
    while (end > start && (end[-1] == ' ' || end[-1] == '\t')) --end;
    char *begin = end;
    while (begin > start && (begin[-1] == '_' || (begin[-1] >= '0' && begin[-1] <= '9') ||
                             ((begin[-1] | 0x20) >= 'a' && (begin[-1] | 0x20) <= 'z')))
      --begin;
    if (begin < end) append(&contract, pp_copy_of(begin, (size_t)(end - begin)));
  }
  free(line);
  fclose(f);
  if (contract.count) return PASS;
  fprintf(stderr, "error: the contract %s declares no extern name\n", path);
  return USAGE;
}

/* 1 if objdump can write @p name so that it is found again: no blank or
 * control character, and none of "<>+-", which it writes around and after
 * names. Compilers write no such name. */
static int plain_name(const char *name) {
  for (const unsigned char *c = (const unsigned char *)name; *c; ++c)
    if (*c <= ' ' || *c == 0x7f || strchr("<>+-", *c)) return 0;
  return *name != '\0';
}

static void refuse_name(const char *name) {
  refuse("the name '%s' has a blank, a control character or one of <>+-, which make objdump's "
         "listings ambiguous",
         name);
}

/* Runs @p command (NULL-terminated, the object last) and hands each line of
 * its output, however long the output is (every symbol is kept, above), to
 * @p parse, which returns -1 for a line it cannot parse.
 * Returns PASS; FAIL after refusing the object if the tool fails, says
 * anything on stderr, or writes a line that does not parse; USAGE if the tool
 * cannot be run. */
static int run_tool(char *const *command, int (*parse)(char *line)) {
  const char *tool = command[0];
  format_seen = 0;
  pp_listing run;
  if (pp_run_listing(command, SIZE_MAX, parse, &run)) return USAGE;
  int status = PASS;
  if (run.code == 127) {
    fprintf(stderr, "error: cannot run %s%s%s\n", tool, run.complaint ? ": " : "",
            run.complaint ? run.complaint : "");
    status = USAGE;
  } else if (run.code != 0 || run.complaint) {
    if (run.complaint)
      refuse("cannot read %s: %s", object, run.complaint);
    else
      refuse("cannot read %s: %s %s", object, tool, run.code >= 0 ? "failed" : "was killed");
    status = FAIL;
  } else if (run.unparsed) {
    refuse("cannot read %s: %s wrote a line that pp-symcheck cannot parse: '%.300s'", object, tool,
           run.unparsed);
    status = FAIL;
  }
  free(run.complaint);
  free(run.unparsed);
  return status;
}

/* The first line of objdump's listings: "OBJECT:     file format FORMAT".
 * Returns -1 if it is not that line. */
static int parse_format(const char *line) {
  static const char *const formats[] = {"elf64-x86-64", "elf64-littleaarch64"};
  const char *format = strstr(line, ":     file format ");
  if (!format) return -1;
  format += strlen(":     file format ");
  for (size_t i = 0; i < sizeof formats / sizeof *formats; ++i)
    if (!strcmp(format, formats[i])) return 0;
  refuse("%s is %s code: pp-symcheck checks only x86-64 and AArch64 (elf64) objects", object, format);
  return 0;
}

/* nm -P: "NAME TYPE [VALUE [SIZE]]"; types U, w and v are undefined (w and
 * v weak: the linker resolves them like U where it can). */
static int parse_symbol(char *line) {
  char *field[4];
  size_t n = pp_split(line, BLANKS, field, 4);
  if (n < 2 || n > 4 || strlen(field[1]) != 1 || !strchr("AaBbCcDdGgIiNnpRrSsTtUuVvWw", field[1][0]))
    return -1;
  for (size_t i = 2; i < n; ++i)
    if (strspn(field[i], HEX) != strlen(field[i])) return -1;
  const char *name = field[0], *library = match(&denied, name);
  /* Upper case is global (U: undefined, N: debugging), W and V weak; i and u
   * (an indirect function, a unique global) may reach other objects too. */
  char type = field[1][0];
  if ((strchr("ABCDGIRSTVW", type) || type == 'i' || type == 'u') && plain_name(name)) {
    char *entry = pp_checked(malloc(strlen(name) + 3));
    sprintf(entry, "%c %s", type, name);
    append(&defined, entry);
  }
  if (!plain_name(name))
    refuse_name(name);
  else if (library)
    refuse("contains library code (symbols matching %s): the library peers belong to the grader; "
           "write your own kernel",
           library);
  else if (strchr("Uwv", field[1][0]) && strcmp(name, "exit") && !match(&allowed, name))
    refuse("calls %s, which a lab file may not use (grading/allowed-symbols.txt lists what it may)",
           name);
  return 0;
}

/* Reads "name", "name+0x1c" or "name-0x4" into @p r. Returns -1 if there is no name. */
static int read_reference(const char *text, reference *r) {
  size_t n = strlen(text);
  long offset = 0;
  for (size_t i = n; i-- > 0;) {
    if (text[i] != '+' && text[i] != '-') continue;
    const char *digits = text + i + 1;
    if (!strncmp(digits, "0x", 2) && digits[2] && strspn(digits + 2, HEX) == strlen(digits + 2)) {
      offset = strtol(digits + 2, NULL, 16);
      if (text[i] == '-') offset = -offset;
      n = i;
    }
    break;
  }
  if (n == 0) return -1;
  r->name = pp_copy_of(text, n);
  r->offset = offset;
  return 0;
}

/* Records what @p text names, once. On x86-64, a PC-relative reference counts
 * from the end of its 4-byte field, so its place is 4 bytes further on. */
static int add_reference(function *f, const char *text, int pc_relative) {
  reference r;
  if (read_reference(text, &r)) return -1;
  if (pc_relative) r.offset += 4;
  if (!strcmp(r.name, f->name)) { /* within itself */
    free(r.name);
    return 0;
  }
  for (size_t i = 0; i < f->ref_count; ++i) {
    if (!strcmp(f->refs[i].name, r.name) && f->refs[i].offset == r.offset) {
      free(r.name);
      return 0;
    }
  }
  f->refs = pp_grow(f->refs, &f->ref_count, &f->ref_capacity, sizeof *f->refs);
  f->refs[f->ref_count - 1] = r;
  return 0;
}

static int is_pc_relative(const char *type) {
  static const char *const types[] = {"R_X86_64_PC32", "R_X86_64_PLT32", "R_X86_64_GOTPCREL",
                                      "R_X86_64_GOTPCRELX", "R_X86_64_REX_GOTPCRELX"};
  for (size_t i = 0; i < sizeof types / sizeof *types; ++i)
    if (!strcmp(type, types[i])) return 1;
  return 0;
}

/* The next relocation "\tADDR: R_TYPE\tTARGET" in @p text, or NULL. */
static char *find_relocation(char *text) {
  for (char *tab = strchr(text, '\t'); tab; tab = strchr(tab + 1, '\t')) {
    size_t hex = strspn(tab + 1, HEX);
    if (hex && !strncmp(tab + 1 + hex, ": R_", 4)) return tab;
  }
  return NULL;
}

static function *current; /* the function being read */

/* Adds each relocation of @p text, which begins with one, to the current function. */
static int add_relocations(char *text) {
  for (char *next; text; text = next) {
    next = find_relocation(text + 1);
    if (next) *next = '\0';
    char *type = text + 1 + strspn(text + 1, HEX) + 2, *target = strchr(type, '\t');
    if (!target) return -1;
    *target++ = '\0';
    if (add_reference(current, target, is_pc_relative(type))) return -1;
  }
  return 0;
}

/* One instruction, without its relocations: refuses it if it enters the
 * kernel, and when it has no relocation (a call or jump within a section, an
 * address the assembler worked out) records the "<name+0x1c>" it targets. */
static int read_instruction(char *text, int relocated) {
  for (char *open = strchr(text, '<'); open && !relocated; open = strchr(open + 1, '<')) {
    char *close = strchr(open, '>');
    if (!close) return -1;
    *close = '\0';
    int bad = add_reference(current, open + 1, 0);
    *close = '>';
    if (bad) return -1;
  }
  /* Any word, so that prefixes (rex.W syscall) hide nothing. */
  const char *previous = "";
  for (char *save = NULL, *word = strtok_r(text, " \t,", &save); word;
       word = strtok_r(NULL, " \t,", &save)) {
    if (!strcmp(word, "(bad)"))
      refuse("%s has bytes that do not decode as instructions", current->name);
    else if (!strcmp(word, "syscall") || !strcmp(word, "sysenter") || !strcmp(word, "svc") ||
             (!strcmp(previous, "int") && !strcmp(word, "$0x80")))
      refuse("%s enters the kernel directly: a lab file may only compute and launch", current->name);
    previous = word;
  }
  return 0;
}

/* objdump -dr -z --no-show-raw-insn -w: after the format line, "Disassembly of
 * section S:", "ADDR <NAME>:" starting a function, and its instructions
 * "  ADDR:\tTEXT", each followed by its relocations "\tADDR: R_TYPE\tTARGET"
 * on the same line or on lines of their own. */
static int parse_disassembly(char *line) {
  static const char header[] = "Disassembly of section ";
  size_t n = strlen(line), hex = strspn(line, HEX);
  if (n == 0) return 0;
  if (!format_seen) {
    format_seen = 1;
    return parse_format(line);
  }
  if (!strncmp(line, header, strlen(header)) && line[n - 1] == ':') {
    char *section = pp_copy_of(line + strlen(header), n - strlen(header) - 1);
    if (!plain_name(section)) refuse_name(section);
    append(&code_sections, section);
    current = NULL;
    return 0;
  }
  if (hex && line[hex] == ' ' && line[hex + 1] == '<' && n >= hex + 5 && !strcmp(line + n - 2, ">:")) {
    if (!code_sections.count) return -1;
    functions = pp_grow(functions, &function_count, &function_capacity, sizeof *functions);
    current = &functions[function_count - 1];
    current->name = pp_copy_of(line + hex + 2, n - hex - 4);
    current->section = code_sections.at[code_sections.count - 1];
    current->start = strtoul(line, NULL, 16);
    if (!plain_name(current->name)) refuse_name(current->name);
    return 0;
  }
  if (!current) return -1;
  if (line[0] == '\t') return find_relocation(line) == line ? add_relocations(line) : -1;
  char *address = line + strspn(line, " ");
  hex = strspn(address, HEX);
  if (!hex || strncmp(address + hex, ":\t", 2)) return -1;
  char *text = address + hex + 2, *relocations = find_relocation(text);
  if (relocations && add_relocations(relocations)) return -1;
  if (relocations) *relocations = '\0';
  return read_instruction(text, relocations != NULL);
}

enum { NOT_A_FUNCTION = -1, EXIT = -2 };

/* What @p r leads to: exit, a function of the object (a place in a code
 * section, or a name), or neither. */
static long resolve(const reference *r) {
  if (!strcmp(r->name, "exit")) return EXIT;
  long found = NOT_A_FUNCTION;
  if (contains(&code_sections, r->name)) { /* the function the place lies in */
    for (size_t i = 0; i < function_count; ++i) {
      const function *f = &functions[i];
      if (!strcmp(f->section, r->name) && r->offset >= 0 && f->start <= (unsigned long)r->offset &&
          (found < 0 || f->start > functions[found].start))
        found = (long)i;
    }
    return found;
  }
  for (size_t i = 0; i < function_count; ++i)
    if (!strcmp(functions[i].name, r->name)) return (long)i;
  return NOT_A_FUNCTION;
}

/* 1 if what @p to names (see resolve()) is exit or a stub. */
static int leads_to_exit(long to) { return to == EXIT || (to >= 0 && functions[to].stub); }

/* nvcc's host copy of a __device__ function calls exit and nothing else; the
 * host compiler may fold identical copies into one that the others call. The
 * stubs are the largest set of functions closed under "refers to something,
 * and only to exit or a stub" (references to themselves aside). */
static void find_stubs(void) {
  for (size_t i = 0; i < function_count; ++i) {
    functions[i].stub = 1;
    for (size_t r = 0; r < functions[i].ref_count; ++r)
      functions[i].refs[r].to = resolve(&functions[i].refs[r]);
  }
  for (int changed = 1; changed;) {
    changed = 0;
    for (size_t i = 0; i < function_count; ++i) {
      function *f = &functions[i];
      int refers = 0, only_stubs = 1;
      for (size_t r = 0; r < f->ref_count && f->stub && only_stubs; ++r) {
        if (f->refs[r].to == (long)i) continue; /* a place within itself */
        refers = 1;
        only_stubs = leads_to_exit(f->refs[r].to);
      }
      if (f->stub && (!refers || !only_stubs)) f->stub = 0, changed = 1;
    }
  }
}

/* The C++ runtime's mangled names, which no kernel may take either: std::,
 * the ABI's, operator new and delete. (No C name but the contract's is let
 * through at all.) */
static const char *const runtime_prefixes[] = {"_ZSt", "_ZNSt", "_ZNKSt", "_ZN9__gnu_cxx", "_ZN10__cxxabiv1",
                                               "_Znw", "_Zna",  "_Zdl",   "_Zda"};

/* Whether @p name (mangled) is a kernel's host function: nvcc gives each
 * kernel _Z<rest> a stub named __device_stub__Z<rest>, which it calls. (A
 * kernel with C linkage has a C name, which could be any library's: refused.) */
static int is_kernel(const char *name) {
  char *stub = pp_checked(malloc(strlen(name) + sizeof "__device_stub__"));
  sprintf(stub, "__device_stub__%s", name + 1);
  int found = 0;
  for (size_t i = 0; i < defined.count && !found; ++i) found = strstr(defined.at[i] + 2, stub) != NULL;
  free(stub);
  return found;
}

/* Whether @p name is nvcc's host copy of a __device__ function (see find_stubs()). */
static int is_device_copy(const char *name) {
  for (size_t i = 0; i < function_count; ++i)
    if (functions[i].stub && !strcmp(functions[i].name, name)) return 1;
  return 0;
}

/* Refuses every external definition but the contract's names, the kernels and
 * what nvcc and the compiler make for them. */
static void check_definitions(void) {
  for (size_t i = 0; i < defined.count; ++i) {
    const char *name = defined.at[i] + 2;
    int weak = strchr("VWvw", defined.at[i][0]) != NULL, runtime = 0;
    for (size_t p = 0; p < sizeof runtime_prefixes / sizeof *runtime_prefixes; ++p)
      runtime |= !strncmp(name, runtime_prefixes[p], strlen(runtime_prefixes[p]));
    if (contains(&contract, name) ||
        !strncmp(name, "DW.ref.", 7) || /* the compiler's pointer to its exception personality */
        (!strncmp(name, "_Z", 2) && !runtime &&
         (strstr(name, "__device_stub__") || is_kernel(name) || is_device_copy(name))))
      continue;
    refuse("defines %s%s, which a lab file may not: only the names its contract declares, its kernels "
           "and names local to the file (static); any other definition (a CUDA, harness, C or C++ "
           "runtime name) would replace the real one wherever the runner uses it",
           name, weak ? " (a weak definition)" : "");
  }
}

/* Sections whose relocations point at the places of every function, stubs
 * included, to describe them: only a reference by name is judged there. */
static int describes_code(const char *section) {
  static const char *const kinds[] = {".eh_frame", ".debug_", ".zdebug_"};
  for (size_t i = 0; i < sizeof kinds / sizeof *kinds; ++i)
    if (!strncmp(section, kinds[i], strlen(kinds[i]))) return 1;
  return 0;
}

static char *relocated_section; /* the section whose relocations are being read */

/* objdump -r -w: after the format line, "RELOCATION RECORDS FOR [S]:", the
 * column heads, and "OFFSET TYPE [TARGET]" for each relocation in S. Data,
 * such as a table of launchers, may not point at exit or a stub; code
 * sections were read with their instructions. */
static int parse_data_relocation(char *line) {
  static const char header[] = "RELOCATION RECORDS FOR [";
  size_t n = strlen(line);
  if (n == 0) return 0;
  if (!format_seen) {
    format_seen = 1;
    return parse_format(line);
  }
  if (!strncmp(line, header, strlen(header)) && n > strlen(header) + 2 && !strcmp(line + n - 2, "]:")) {
    free(relocated_section);
    relocated_section = pp_copy_of(line + strlen(header), n - strlen(header) - 2);
    return 0;
  }
  char *field[3];
  size_t count = pp_split(line, BLANKS, field, 3);
  if (!relocated_section || count > 3 || count < 2) return -1;
  if (!strcmp(field[0], "OFFSET")) return 0; /* the column heads */
  if (strspn(field[0], HEX) != strlen(field[0]) || strncmp(field[1], "R_", 2)) return -1;
  if (count == 2 || contains(&code_sections, relocated_section)) return 0;
  reference r;
  if (read_reference(field[2], &r)) return -1;
  long to = describes_code(relocated_section) && contains(&code_sections, r.name) ? NOT_A_FUNCTION
                                                                                  : resolve(&r);
  if (leads_to_exit(to))
    refuse("data in the file (%s) points at %s, which ends the process (exit)", relocated_section,
           to >= 0 ? functions[to].name : r.name);
  free(r.name);
  return 0;
}

/* Forgets the previous object's code. */
static void forget_code(void) {
  for (size_t i = 0; i < function_count; ++i) {
    for (size_t r = 0; r < functions[i].ref_count; ++r) free(functions[i].refs[r].name);
    free(functions[i].refs);
    free(functions[i].name);
  }
  free(functions);
  functions = NULL;
  function_count = function_capacity = 0;
  clear(&code_sections);
  clear(&defined);
  free(relocated_section);
  relocated_section = NULL;
  current = NULL;
}

/* The sections an object may hold (--sections), and what readelf has said of
 * the object being read: its count of section headers, how many it has
 * listed, and where in its listing it is. */
static strings section_allowed, section_refused;
static long section_count, sections_listed;
static enum { COUNT, HEADING, COLUMNS, SECTIONS, LEGEND } section_stage;

/* 1 if @p text is a nonempty run of characters of @p set. */
static int all_of(const char *text, const char *set) {
  return *text && strspn(text, set) == strlen(text);
}

/* Whether a section named @p name may be in a lab file's object: it is on the
 * list, or it holds the relocations (".rela" + name) of one that is. */
static int section_is_allowed(const char *name) {
  static const char characters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-$";
  if (!all_of(name, characters)) return 0; /* readelf wrote a control character as ^X */
  return match(&section_allowed, name) || (!strncmp(name, ".rela", 5) && match(&section_allowed, name + 5));
}

/* readelf -S -W: "There are N section headers, starting at offset 0xO:",
 * "Section Headers:", the column heads, one line per section
 * "  [NR] NAME TYPE ADDRESS OFFSET SIZE ES [FLAGS] LK INF AL" (the null
 * section 0 has no name, FLAGS may be empty), then "Key to Flags:" and its
 * legend. Control characters in a name are written as ^X; a name with a
 * blank does not parse. */
static int parse_section(char *line) {
  static const char count_head[] = "There are ", count_tail[] = " section headers, starting at offset 0x";
  if (!*line || section_stage == LEGEND) return 0;
  if (section_stage == COUNT) {
    char *end;
    if (strncmp(line, count_head, strlen(count_head))) return -1;
    section_count = strtol(line + strlen(count_head), &end, 10);
    section_stage = HEADING;
    return section_count > 0 && !strncmp(end, count_tail, strlen(count_tail)) ? 0 : -1;
  }
  if (section_stage == HEADING) {
    section_stage = COLUMNS;
    return strcmp(line, "Section Headers:") ? -1 : 0;
  }
  if (section_stage == COLUMNS) {
    section_stage = SECTIONS;
    return strstr(line, "[Nr] Name ") ? 0 : -1;
  }
  if (!strcmp(line, "Key to Flags:")) {
    section_stage = LEGEND;
    return 0;
  }
  char *open = line + strspn(line, " "), *close = strchr(open, ']'), *field[11];
  if (*open != '[' || !close) return -1;
  *close = '\0';
  if (!all_of(open + 1 + strspn(open + 1, " "), "0123456789") || strtol(open + 1, NULL, 10) != sections_listed)
    return -1;
  size_t n = pp_split(close + 1, BLANKS, field, 10), named = sections_listed > 0;
  ++sections_listed;
  if (n != 8 + named && n != 9 + named) return -1;
  for (size_t i = named + 1; i < named + 5; ++i)
    if (!all_of(field[i], HEX)) return -1; /* ADDRESS OFFSET SIZE ES */
  if (n == 9 + named && !all_of(field[named + 5], "ABCDEGILMOSTWXRlopxy")) return -1; /* FLAGS */
  for (size_t i = n - 3; i < n; ++i)
    if (!all_of(field[i], "0123456789")) return -1; /* LK INF AL */
  if (!named) return strcmp(field[0], "NULL") ? -1 : 0;
  if (!section_is_allowed(field[0])) append(&section_refused, pp_copy_of(field[0], strlen(field[0])));
  return 0;
}

/* Refuses @p path if it holds a section that is not allowed (readelf -S -W),
 * naming the first few, or if readelf does not list each of its section headers. */
static int check_sections(const char *path) {
  enum { NAMED = 5 };
  char *headers[] = {"readelf", "-S", "-W", "--", (char *)path, NULL};
  section_stage = COUNT;
  section_count = -1;
  sections_listed = 0;
  clear(&section_refused);
  int status = run_tool(headers, parse_section);
  if (status == PASS && sections_listed != section_count) {
    refuse("cannot read %s: readelf listed %ld of its %ld sections", path, sections_listed, section_count);
    status = FAIL;
  }
  if (section_refused.count) {
    char names[NAMED * 80] = "";
    for (size_t i = 0; i < section_refused.count && i < NAMED; ++i)
      snprintf(names + strlen(names), sizeof names - strlen(names), "%s%.70s", i ? ", " : "", section_refused.at[i]);
    char more[40] = "";
    if (section_refused.count > NAMED) snprintf(more, sizeof more, " and %zu more", section_refused.count - NAMED);
    refuse("holds %s %s%s, which nvcc and its host compiler do not emit for a lab file "
           "(grading/allowed-sections.txt lists those they do): the linker acts on some sections "
           "(on GCC's LTO bytecode, .gnu.lto_*, it runs the compiler and the assembler)",
           section_refused.count > 1 ? "sections" : "a section", names, more);
  }
  return status;
}

/* Checks the symbols, code and data of @p path against the allow-list. */
static int check_symbols(const char *path) {
  char *symbols[] = {"nm", "-P", "--", (char *)path, NULL};
  char *disassembly[] = {"objdump", "-dr", "-z", "--no-show-raw-insn", "-w", "--", (char *)path, NULL};
  char *relocations[] = {"objdump", "-r", "-w", "--", (char *)path, NULL};
  int status = run_tool(symbols, parse_symbol);
  if (status == PASS) status = run_tool(disassembly, parse_disassembly);
  if (status == PASS) {
    /* Code that is not a stub must not reach exit, nor may data point at a stub. */
    find_stubs();
    check_definitions();
    for (size_t i = 0; i < function_count; ++i) {
      for (size_t r = 0; r < functions[i].ref_count && !functions[i].stub; ++r) {
        if (functions[i].refs[r].to != (long)i && leads_to_exit(functions[i].refs[r].to)) {
          refuse("%s ends the process (exit): only the grader decides when it stops", functions[i].name);
          break;
        }
      }
    }
    status = run_tool(relocations, parse_data_relocation);
  }
  return status;
}

/* Checks @p path's sections (with --sections) and then its symbols (with
 * --allow), unless a section was refused: nm and objdump load the LTO plugin
 * for an object that holds .gnu.lto_* sections, and no tool reads such an
 * object further. */
static int check_object(const char *path, int sections, int symbols) {
  struct stat info;
  if (stat(path, &info) || !S_ISREG(info.st_mode) || access(path, R_OK)) {
    fprintf(stderr, "error: %s is not a file that can be read\n", path);
    return USAGE;
  }
  object = path;
  forget_code();
  int status = sections ? check_sections(path) : PASS;
  if (status == PASS && symbols && !section_refused.count) status = check_symbols(path);
  return status;
}

static int write_verdict(const char *path, int status) {
  char *part = pp_checked(malloc(strlen(path) + sizeof ".part"));
  sprintf(part, "%s.part", path);
  FILE *f = fopen(part, "w");
  int failed = !f;
  if (f) {
    fprintf(f, "status %s\n", status == PASS ? "pass" : status == FAIL ? "fail" : "error");
    for (size_t i = 0; i < reasons.count; ++i) fprintf(f, "note %s\n", reasons.at[i]);
    failed = ferror(f) | (fclose(f) != 0) || rename(part, path);
  }
  if (failed) {
    fprintf(stderr, "error: cannot write %s\n", path);
    remove(part);
  }
  free(part);
  return failed ? USAGE : status;
}

int main(int argc, char **argv) {
  const char *list = NULL, *sections = NULL, *verdict = NULL, *header = NULL;
  int arg = 1;
  for (; arg + 1 < argc && !strncmp(argv[arg], "--", 2); arg += 2) {
    if (!strcmp(argv[arg], "--allow"))
      list = argv[arg + 1];
    else if (!strcmp(argv[arg], "--sections"))
      sections = argv[arg + 1];
    else if (!strcmp(argv[arg], "--contract"))
      header = argv[arg + 1];
    else if (!strcmp(argv[arg], "--verdict"))
      verdict = argv[arg + 1];
    else
      break;
  }
  if ((!list && !sections) || arg >= argc || !strncmp(argv[arg], "--", 2)) {
    fprintf(stderr, "usage: %s [--allow LIST] [--sections LIST] [--contract HEADER] [--verdict FILE] OBJECT...\n"
                    "(--allow, --sections or both)\n", argv[0]);
    return USAGE;
  }
  int status = list ? read_list(list, &allowed, &denied) : PASS;
  if (status == PASS && sections) status = read_list(sections, &section_allowed, NULL);
  if (status == PASS && header) status = read_contract(header);
  for (; arg < argc && status != USAGE; ++arg) status = check_object(argv[arg], sections != NULL, list != NULL);
  if (status != USAGE) status = reasons.count ? FAIL : PASS;
  if (status == PASS)
    printf("clean: every %s on the allow-list\n",
           !sections ? "symbol is" : list ? "symbol and section is" : "section is");
  return verdict ? write_verdict(verdict, status) : status;
}
