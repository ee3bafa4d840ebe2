/* pp-technique: does a rung's compiled code show the rung's technique?
 *
 *   pp-technique --rung VARIANT --facts NAME[,NAME...]=FACT[,FACT...] [--facts ...] [--verdict FILE]
 *                (--listing FILE | --cuobjdump PROGRAM [--sandbox SCRIPT] OBJECT)
 *
 * Reads the SASS of a compiled lab file, as `cuobjdump -sass OBJECT` lists it
 * (run by this program, inside grading/sandbox's `inspect` box with
 * --sandbox, or read from FILE with --listing), and checks each --facts'
 * FACTs on each of its kernels NAME: a kernel's functions are those whose
 * name, demangled to its base name, is NAME (each instance of a template),
 * with the functions they call by name. The facts are the table below; the
 * lab's pp_add_lab() TECHNIQUE says which hold for which rung
 * (cmake/Labs.cmake).
 *
 * The listing is the submission's, so it is parsed as untrusted text and
 * fails closed: a line that is none of the forms below, a kernel that is not
 * there, a branch or a call it cannot follow where the fact needs it, and
 * the technique counts as not shown.
 *
 * A fact holds for some architectures only (HGMMA exists in sm_90a code
 * alone): it is checked in the object's code for those, and where the object
 * holds none (a build for sm_75 only), the test is skipped, exit code 77, as
 * it is where PROGRAM is not an executable file (no cuobjdump).
 * Exits 0 when every fact holds, 1 when one does not (each printed, "FAIL
 * ..."), 2 on bad usage or an unreadable FILE. With --verdict it also writes
 * "status pass|fail|skip|error" and one "note" per missing fact.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "listing.h"

enum { PASS = 0, FAIL = 1, USAGE = 2, SKIP = 77 };

/* At most this much listing is read (lab 06's whole file lists about 3 MiB);
 * past it the listing counts as unreadable. */
#define LISTING_MAX ((size_t)256 << 20)

/* --- the listing ---------------------------------------------------------- */

typedef struct instruction {
  unsigned long address;
  char *opcode;   /* with its modifiers: "LDG.E.128" */
  char *operands; /* up to the ';' */
} instruction;

typedef struct label {
  char *name;
  unsigned long address; /* of the next instruction */
} label;

typedef struct function {
  char *name; /* as listed: mangled */
  size_t cubin;
  instruction *code;
  size_t count, capacity;
  label *labels;
  size_t label_count, label_capacity;
  size_t pending; /* labels not yet given an address */
} function;

typedef struct cubin {
  char arch[16]; /* "sm_90a" */
  int sm;        /* 90 */
  int specific;  /* the 'a' of sm_90a */
} cubin;

static cubin *cubins;
static size_t cubin_count, cubin_capacity;
static function *functions;
static size_t function_count, function_capacity;
static function *current; /* the function whose code is being listed, or NULL */
static char *unparsed;    /* the first line that is none of the forms */

static int is_hex(const char *s, size_t n) {
  if (n == 0) return 0;
  for (size_t i = 0; i < n; ++i)
    if (!isxdigit((unsigned char)s[i])) return 0;
  return 1;
}

static int starts(const char *s, const char *prefix) { return !strncmp(s, prefix, strlen(prefix)); }

/* "code for sm_90a" or the like: a new cubin. */
static int parse_code_for(const char *arch) {
  int sm = 0;
  size_t n = strspn(arch + 3, "0123456789");
  if (!starts(arch, "sm_") || n == 0 || n > 4) return -1;
  const char *rest = arch + 3 + n;
  if (*rest && strcmp(rest, "a") && strcmp(rest, "f")) return -1;
  sm = atoi(arch + 3);
  cubins = pp_grow(cubins, &cubin_count, &cubin_capacity, sizeof *cubins);
  cubin *c = &cubins[cubin_count - 1];
  snprintf(c->arch, sizeof c->arch, "%s", arch);
  c->sm = sm;
  c->specific = !strcmp(rest, "a");
  current = NULL;
  return 0;
}

/* An identifier, as a kernel's listed name is: mangled or not. */
static int is_name(const char *s) {
  if (!*s) return 0;
  for (; *s; ++s)
    if (!isalnum((unsigned char)*s) && *s != '_' && *s != '$' && *s != '.') return 0;
  return 1;
}

/* "/""*0a30*""/  @!P0 BRA 0x480 ;  /""* 0x... *""/": one instruction of the current function. */
static int parse_instruction(char *t) {
  char *end = strstr(t + 2, "*/");
  if (!current || !end || !is_hex(t + 2, (size_t)(end - t - 2))) return -1;
  unsigned long address = strtoul(t + 2, NULL, 16);
  char *p = end + 2;
  p += strspn(p, " \t");
  if (*p == '@') { /* a predicate: @P0, @!P1, @!UPT */
    p += 1 + (p[1] == '!');
    if (*p == 'U') ++p;
    if (*p != 'P' || !(isdigit((unsigned char)p[1]) || p[1] == 'T')) return -1;
    p += 2;
    if (*p != ' ' && *p != '\t') return -1;
    p += strspn(p, " \t");
  }
  /* Modifiers may hold lower case: HGMMA.64x128x16.F32.BF16. */
  size_t n = strspn(p, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.");
  if (n == 0 || !isupper((unsigned char)*p) || p[n - 1] == '.') return -1;
  char *semicolon = strchr(p + n, ';');
  if (!semicolon || (p[n] != ' ' && p[n] != '\t' && p[n] != ';')) return -1;
  char *after = semicolon + 1;
  after += strspn(after, " \t");
  if (*after) { /* only its encoding may follow: "/" "* 0x0000... *" "/" */
    if (!starts(after, "/* 0x") || strlen(after) != 24 || !is_hex(after + 5, 16) || strcmp(after + 21, " */"))
      return -1;
  }
  function *f = current;
  f->code = pp_grow(f->code, &f->count, &f->capacity, sizeof *f->code);
  instruction *i = &f->code[f->count - 1];
  i->address = address;
  i->opcode = pp_copy_of(p, n);
  i->operands = pp_copy_of(p + n, (size_t)(semicolon - p - n));
  for (; f->pending; --f->pending) f->labels[f->label_count - f->pending].address = address;
  return 0;
}

/* One line of the listing; returns -1 if it is none of its forms. */
static int parse_line(char *line) {
  char *t = line + strspn(line, " \t");
  size_t n = strlen(t);
  while (n && (t[n - 1] == ' ' || t[n - 1] == '\t' || t[n - 1] == '\r')) t[--n] = '\0';
  if (n == 0) return 0;
  if (starts(t, "/* 0x")) /* the second half of an instruction's encoding */
    return n == 24 && is_hex(t + 5, 16) && !strcmp(t + 21, " */") ? 0 : -1;
  if (starts(t, "/*")) return parse_instruction(t);
  if (t[0] == '.' && t[n - 1] == ':') { /* a branch target: ".L_x_12:" */
    if (!current) return -1;
    function *f = current;
    f->labels = pp_grow(f->labels, &f->label_count, &f->label_capacity, sizeof *f->labels);
    f->labels[f->label_count - 1].name = pp_copy_of(t, n - 1);
    ++f->pending;
    return 0;
  }
  if (starts(t, "Function : ")) {
    if (!cubin_count || !is_name(t + 11)) return -1;
    functions = pp_grow(functions, &function_count, &function_capacity, sizeof *functions);
    current = &functions[function_count - 1];
    current->name = pp_copy_of(t + 11, strlen(t + 11));
    current->cubin = cubin_count - 1;
    return 0;
  }
  if (starts(t, "code for ")) return parse_code_for(t + 9);
  if (starts(t, ".headerflags")) return current ? 0 : -1;
  if (starts(t, ".target")) return cubin_count && !current ? 0 : -1; /* ".target sm_90a", after "code for" */
  if (strspn(t, ".") == n) { /* "........": the end of a function's code */
    current = NULL;
    return 0;
  }
  if (strspn(t, "=") == n || !strcmp(t, "Fatbin elf code:") || !strcmp(t, "Fatbin ptx code:") ||
      !strcmp(t, "compressed")) {
    current = NULL;
    return 0;
  }
  /* A header's "key = value" (arch = sm_90, code version = [1,8], ptxasOptions = ...). */
  char *equals = strstr(t, " = ");
  if (equals && !current && equals > t &&
      strspn(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ _") >= (size_t)(equals - t))
    return 0;
  return -1;
}

/* --- running the listing tool --------------------------------------------- */

static char complaint[512]; /* the tool's first line on stderr */

/* Runs @p command and reads its listing; returns PASS, FAIL (the tool failed:
 * complaint says why) or USAGE (it could not be started, or the sandbox failed). */
static int run_listing(char *const *command) {
  pp_listing run;
  if (pp_run_listing(command, LISTING_MAX, parse_line, &run)) return USAGE;
  unparsed = run.unparsed;
  snprintf(complaint, sizeof complaint, "%s", run.complaint ? run.complaint : "");
  free(run.complaint);
  if (run.too_long) {
    snprintf(complaint, sizeof complaint, "it listed more than %zu MiB", LISTING_MAX >> 20);
    return FAIL;
  }
  if (run.code == 127 || starts(complaint, "sandbox: ") || starts(complaint, "bwrap: ")) {
    fprintf(stderr, "error: %s could not list the object%s%s\n", command[0], *complaint ? ": " : "", complaint);
    return USAGE;
  }
  if (run.code != 0) {
    if (!*complaint)
      snprintf(complaint, sizeof complaint, "%s %s", command[0], run.code < 0 ? "was killed" : "failed");
    return FAIL;
  }
  return PASS;
}

/* --- the facts ------------------------------------------------------------ */

typedef enum kind { PRESENT, ABSENT_LOCAL, NO_LOOP_AROUND_BARRIER } kind;

/* A fact's architectures are those whose code has it where the course uses
 * it: ldmatrix (sm_75 on) feeds BF16 mma, sm_80 on; the copy engine (sm_90
 * on) is lab 06's Hopper code, sm_90a's, with wgmma. */
typedef struct fact {
  const char *name; /* as TECHNIQUE names it */
  kind kind;
  const char *opcode;    /* PRESENT: the opcode's first word, "LDG" */
  const char *modifier;  /* and a modifier it must carry, ".128", or NULL */
  const char *missing;   /* what the message says is missing */
  int min_sm, max_sm;    /* the architectures that have it (max 0: every one from min) */
  int specific;          /* only in architecture-specific code (sm_90a) */
} fact;

static const fact facts[] = {
    {"shuffle", PRESENT, "SHFL", NULL, "no warp shuffle (SHFL)", 0, 0, 0},
    {"load-128", PRESENT, "LDG", ".128", "no 128-bit global load (LDG.E.128)", 0, 0, 0},
    {"shared-load", PRESENT, "LDS", NULL, "no shared-memory load (LDS)", 0, 0, 0},
    {"shared-load-128", PRESENT, "LDS", ".128", "no 128-bit shared-memory load (LDS.128)", 0, 0, 0},
    {"store-streaming", PRESENT, "STG", ".EF", "no streaming store (STG.E.EF, __stcs())", 0, 0, 0},
    {"prefetch-l2", PRESENT, "CCTL", ".PF2", "no prefetch to L2 (CCTL.E.PF2, prefetch.global.L2)", 0, 0, 0},
    {"cp-async", PRESENT, "LDGSTS", NULL, "no cp.async copy from global to shared memory (LDGSTS)", 80, 0, 0},
    {"ldmatrix", PRESENT, "LDSM", NULL, "no ldmatrix (LDSM)", 80, 0, 0},
    {"mma", PRESENT, "HMMA", NULL, "no tensor-core product (HMMA)", 80, 0, 0},
    {"wgmma", PRESENT, "HGMMA", NULL, "no warpgroup product (HGMMA, wgmma)", 90, 90, 1},
    {"tma", PRESENT, "UTMALDG", NULL, "no copy-engine load (UTMALDG, TMA)", 90, 90, 1},
    {"setmaxnreg", PRESENT, "USETMAXREG", NULL, "no register hand-over (USETMAXREG, setmaxnreg)", 90, 90, 1},
    {"no-local", ABSENT_LOCAL, NULL, NULL, NULL, 0, 0, 0},
    {"tree-unrolled", NO_LOOP_AROUND_BARRIER, NULL, NULL, NULL, 0, 0, 0},
};
enum { FACT_COUNT = sizeof facts / sizeof *facts };

static int applies(const fact *f, const cubin *c) {
  return c->sm >= f->min_sm && (!f->max_sm || c->sm <= f->max_sm) && (!f->specific || c->specific);
}

/* The opcode's first word is @p word, and (where given) one of its modifiers is @p modifier. */
static int is_op(const char *opcode, const char *word, const char *modifier) {
  size_t n = strlen(word);
  if (strncmp(opcode, word, n) || (opcode[n] && opcode[n] != '.')) return 0;
  if (!modifier) return 1;
  for (const char *m = opcode + n; (m = strstr(m, modifier)); m += strlen(modifier)) {
    char next = m[strlen(modifier)];
    if (!next || next == '.') return 1;
  }
  return 0;
}

/* The base name of a listed function: an unmangled name as it is; of
 * _Z[L]<n><name>... or _ZN...<n><name>[I...]E..., the last <name> of the
 * nested name (so every instance of a template has its template's name).
 * Writes it to @p out; returns 0, or -1 for a name it cannot read. */
static int base_name(const char *mangled, char *out, size_t size) {
  if (!starts(mangled, "_Z")) {
    snprintf(out, size, "%s", mangled);
    return 0;
  }
  const char *p = mangled + 2;
  int nested = *p == 'N';
  if (nested) ++p;
  if (*p == 'L') ++p;
  const char *last = NULL;
  size_t last_len = 0;
  while (isdigit((unsigned char)*p)) {
    char *end;
    unsigned long len = strtoul(p, &end, 10);
    if (len == 0 || strlen(end) < len) return -1;
    last = end;
    last_len = len;
    p = end + len;
    if (!nested) break;
  }
  if (!last || last_len >= size) return -1;
  memcpy(out, last, last_len);
  out[last_len] = '\0';
  return 0;
}

static function *find_function(size_t cubin, const char *name) {
  for (size_t i = 0; i < function_count; ++i)
    if (functions[i].cubin == cubin && !strcmp(functions[i].name, name)) return &functions[i];
  return NULL;
}

/* A branch's or call's target, its last operand ("BRA.DIV UR4, 0x480"):
 * "0x480" or "`(.L_x_3)" or "`(_Z4stepv)". Writes the address or the symbol;
 * returns 1 for an address, 2 for a symbol, 0 if neither. */
static int target_of(const char *operands, unsigned long *address, char *symbol, size_t size) {
  const char *p = strrchr(operands, ',');
  p = p ? p + 1 : operands;
  p += strspn(p, " \t");
  const char *tick = strstr(p, "`(");
  if (tick) {
    const char *close = strchr(tick, ')');
    if (!close || (size_t)(close - tick - 2) >= size) return 0;
    memcpy(symbol, tick + 2, (size_t)(close - tick - 2));
    symbol[close - tick - 2] = '\0';
    return 2;
  }
  if (starts(p, "0x")) {
    char *end;
    *address = strtoul(p + 2, &end, 16);
    if (end == p + 2) return 0;
    end += strspn(end, " \t");
    return *end ? 0 : 1;
  }
  return 0;
}

/* The functions of one kernel instance: itself and what it calls, in its cubin.
 * Sets *opaque where it calls something that cannot be followed. */
static size_t closure(function *kernel, function **out, size_t most, int *opaque) {
  size_t n = 0;
  out[n++] = kernel;
  for (size_t k = 0; k < n; ++k) {
    for (size_t i = 0; i < out[k]->count; ++i) {
      instruction *in = &out[k]->code[i];
      if (!is_op(in->opcode, "CALL", NULL)) continue;
      unsigned long address;
      char symbol[512];
      int what = target_of(in->operands, &address, symbol, sizeof symbol);
      if (what == 1) continue; /* within the function */
      function *callee = what == 2 ? find_function(kernel->cubin, symbol) : NULL;
      if (!callee) {
        *opaque = 1;
        continue;
      }
      int seen = 0;
      for (size_t j = 0; j < n; ++j) seen |= out[j] == callee;
      if (!seen && n < most) out[n++] = callee;
      else if (!seen) *opaque = 1;
    }
  }
  return n;
}

static int resolve_label(const function *f, const char *name, unsigned long *address) {
  for (size_t i = 0; i < f->label_count; ++i)
    if (!strcmp(f->labels[i].name, name) && i < f->label_count - f->pending) {
      *address = f->labels[i].address;
      return 1;
    }
  return 0;
}

/* A loop around a block barrier in @p f: a backward branch whose span holds
 * a BAR (any path that runs an instruction twice takes a branch back across
 * it). Returns 1 and describes it in @p why, -1 where a branch cannot be
 * followed, 0 where there is none. */
static int loop_around_barrier(const function *f, char *why, size_t size) {
  for (size_t i = 0; i < f->count; ++i) {
    const instruction *in = &f->code[i];
    int indirect = is_op(in->opcode, "BRX", NULL) || is_op(in->opcode, "JMX", NULL);
    if (!indirect && !is_op(in->opcode, "BRA", NULL) && !is_op(in->opcode, "JMP", NULL)) continue;
    unsigned long to;
    char symbol[256];
    int what = indirect ? 0 : target_of(in->operands, &to, symbol, sizeof symbol);
    if (what == 2 && !resolve_label(f, symbol, &to)) what = 0;
    if (!what) {
      snprintf(why, size, "a branch it cannot follow (%s%s at 0x%04lx)", in->opcode, in->operands, in->address);
      return -1;
    }
    if (to >= in->address) continue; /* forward, or the branch to itself that ends the code */
    for (size_t j = 0; j < f->count; ++j)
      if (f->code[j].address >= to && f->code[j].address <= in->address && is_op(f->code[j].opcode, "BAR", NULL)) {
        snprintf(why, size, "the branch at 0x%04lx back to 0x%04lx passes %s at 0x%04lx", in->address, to,
                 f->code[j].opcode, f->code[j].address);
        return 1;
      }
  }
  return 0;
}

/* --- the verdict ---------------------------------------------------------- */

static char **notes;
static size_t note_count, note_capacity;

static void note(const char *format, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *format, ...) {
  char line[1024];
  va_list args;
  va_start(args, format);
  vsnprintf(line, sizeof line, format, args);
  va_end(args);
  for (size_t i = 0; i < note_count; ++i)
    if (!strcmp(notes[i], line)) return;
  notes = pp_grow(notes, &note_count, &note_capacity, sizeof *notes);
  notes[note_count - 1] = pp_copy_of(line, strlen(line));
}

/* Checks fact @p f on every instance of @p kernel in the cubins it applies to;
 * returns how many such cubins there were. */
static size_t check_fact(const char *rung, const char *kernel, const fact *f) {
  size_t applicable = 0;
  for (size_t c = 0; c < cubin_count; ++c) {
    if (!applies(f, &cubins[c])) continue;
    ++applicable;
    size_t instances = 0;
    for (size_t k = 0; k < function_count; ++k) {
      char base[512];
      if (functions[k].cubin != c || base_name(functions[k].name, base, sizeof base) || strcmp(base, kernel)) continue;
      ++instances;
      function *group[64];
      int opaque = 0;
      size_t n = closure(&functions[k], group, sizeof group / sizeof *group, &opaque);
      const char *name = functions[k].name, *arch = cubins[c].arch;
      if (f->kind == PRESENT) {
        int found = 0;
        for (size_t g = 0; g < n && !found; ++g)
          for (size_t i = 0; i < group[g]->count && !found; ++i) found = is_op(group[g]->code[i].opcode, f->opcode, f->modifier);
        if (!found) note("%s: %s in %s (%s, %s code)", rung, f->missing, kernel, name, arch);
      } else if (f->kind == ABSENT_LOCAL) {
        size_t loads = 0, stores = 0;
        for (size_t g = 0; g < n; ++g)
          for (size_t i = 0; i < group[g]->count; ++i) {
            loads += is_op(group[g]->code[i].opcode, "LDL", NULL);
            stores += is_op(group[g]->code[i].opcode, "STL", NULL);
          }
        if (opaque)
          note("%s: %s calls code that cannot be followed (%s, %s code): no local memory not shown", rung, kernel,
               name, arch);
        else if (loads || stores)
          note("%s: local memory in %s (%zu LDL, %zu STL; %s, %s code): a register array indexed at run time, "
               "or registers spilled", rung, kernel, loads, stores, name, arch);
      } else {
        char why[512] = "";
        int loop = opaque ? -1 : 0;
        if (opaque) snprintf(why, sizeof why, "a call it cannot follow");
        for (size_t g = 0; g < n && loop == 0; ++g) loop = loop_around_barrier(group[g], why, sizeof why);
        if (loop > 0)
          note("%s: a loop around a block barrier in %s (%s; %s, %s code): the tree is not unrolled", rung, kernel,
               why, name, arch);
        else if (loop < 0)
          note("%s: %s in %s (%s, %s code): the tree's unrolling not shown", rung, why, kernel, name, arch);
      }
    }
    if (!instances)
      note("%s: no kernel named %s in the %s code (the name your file was given for this rung)", rung, kernel,
           cubins[c].arch);
  }
  return applicable;
}

static int write_verdict(const char *path, const char *status) {
  char part[4096];
  snprintf(part, sizeof part, "%s.part", path);
  FILE *f = fopen(part, "w");
  int failed = !f;
  if (f) {
    fprintf(f, "status %s\n", status);
    for (size_t i = 0; i < note_count; ++i) fprintf(f, "note %s\n", notes[i]);
    failed = ferror(f) | (fclose(f) != 0) || rename(part, path);
  }
  if (failed) {
    fprintf(stderr, "error: cannot write %s\n", path);
    remove(part);
  }
  return failed;
}

static int finish(const char *verdict, int status) {
  const char *word = status == PASS ? "pass" : status == FAIL ? "fail" : status == SKIP ? "skip" : "error";
  if (verdict && write_verdict(verdict, word)) return USAGE;
  return status;
}

static int usage(const char *program) {
  fprintf(stderr,
          "usage: %s --rung VARIANT --facts NAME[,NAME...]=FACT[,FACT...] [--facts ...] [--verdict FILE]\n"
          "       (--listing FILE | --cuobjdump PROGRAM [--sandbox SCRIPT] OBJECT)\n"
          "facts:",
          program);
  for (size_t i = 0; i < FACT_COUNT; ++i) fprintf(stderr, " %s", facts[i].name);
  fprintf(stderr, "\n");
  return USAGE;
}

enum { MOST = 16 };

/* One --facts: every fact of facts[] holds in every kernel of kernels[]. */
typedef struct check {
  char *kernels[MOST];
  const fact *facts[MOST];
  size_t kernel_count, fact_count;
} check;

/* Reads "NAME[,NAME...]=FACT[,FACT...]" into @p c; returns 0, or -1. */
static int parse_check(char *text, check *c) {
  char *equals = strchr(text, '=');
  if (!equals) return -1;
  *equals = '\0';
  char *wanted[MOST];
  c->kernel_count = pp_split(text, ",", c->kernels, MOST);
  c->fact_count = pp_split(equals + 1, ",", wanted, MOST);
  if (!c->kernel_count || c->kernel_count > MOST || !c->fact_count || c->fact_count > MOST) return -1;
  for (size_t i = 0; i < c->kernel_count; ++i)
    if (!is_name(c->kernels[i])) return -1;
  for (size_t i = 0; i < c->fact_count; ++i) {
    c->facts[i] = NULL;
    for (size_t j = 0; j < FACT_COUNT; ++j)
      if (!strcmp(wanted[i], facts[j].name)) c->facts[i] = &facts[j];
    if (!c->facts[i]) {
      fprintf(stderr, "error: no fact named '%s'\n", wanted[i]);
      return -1;
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  const char *rung = NULL, *verdict = NULL, *listing = NULL, *cuobjdump = NULL, *sandbox = NULL;
  check checks[MOST];
  size_t check_count = 0;
  int arg = 1;
  for (; arg + 1 < argc && starts(argv[arg], "--"); arg += 2) {
    const char *option = argv[arg], *value = argv[arg + 1];
    if (!strcmp(option, "--rung")) rung = value;
    else if (!strcmp(option, "--facts")) {
      if (check_count == MOST || parse_check(argv[arg + 1], &checks[check_count++])) return usage(argv[0]);
    } else if (!strcmp(option, "--verdict")) verdict = value;
    else if (!strcmp(option, "--listing")) listing = value;
    else if (!strcmp(option, "--cuobjdump")) cuobjdump = value;
    else if (!strcmp(option, "--sandbox")) sandbox = value;
    else return usage(argv[0]);
  }
  const char *object = arg < argc ? argv[arg++] : NULL;
  if (!rung || !check_count || arg != argc || !listing == !cuobjdump || !cuobjdump != !object ||
      (sandbox && !cuobjdump))
    return usage(argv[0]);

  int status;
  if (listing) {
    FILE *in = fopen(listing, "r");
    if (!in) {
      fprintf(stderr, "error: cannot read %s\n", listing);
      return finish(verdict, USAGE);
    }
    status = pp_read_listing(in, LISTING_MAX, parse_line, &unparsed) ? FAIL : PASS;
    fclose(in);
    if (status != PASS) snprintf(complaint, sizeof complaint, "it is longer than %zu MiB", LISTING_MAX >> 20);
  } else {
    struct stat info;
    if (cuobjdump[0] != '/' || stat(cuobjdump, &info) || !S_ISREG(info.st_mode) || access(cuobjdump, X_OK)) {
      printf("skip: no cuobjdump here (%s: CMake found none with the CUDA Toolkit): the compiled code's "
             "technique is not checked\n", cuobjdump);
      note("%s: not checked: no cuobjdump on the grading machine", rung);
      return finish(verdict, SKIP);
    }
    char *plain[] = {(char *)cuobjdump, "-sass", (char *)object, NULL};
    char *boxed[] = {"sh", (char *)sandbox, "inspect", "--ro", (char *)object, "--", (char *)cuobjdump, "-sass",
                     (char *)object, NULL};
    status = run_listing(sandbox ? boxed : plain);
    if (status == USAGE) return finish(verdict, USAGE);
  }
  if (status != PASS) {
    note("%s: the compiled code could not be read (%s): technique not shown", rung, complaint);
  } else if (unparsed) {
    note("%s: the listing holds a line that pp-technique cannot read, '%.200s': technique not shown", rung, unparsed);
  } else if (!cubin_count) {
    note("%s: the object holds no GPU code (SASS) to read: technique not shown", rung);
  } else {
    const fact *unchecked = NULL;
    for (size_t c = 0; c < check_count; ++c)
      for (size_t k = 0; k < checks[c].kernel_count; ++k)
        for (size_t i = 0; i < checks[c].fact_count; ++i)
          if (!check_fact(rung, checks[c].kernels[k], checks[c].facts[i]) && !unchecked) unchecked = checks[c].facts[i];
    if (unchecked && !note_count) {
      char archs[256] = "", needs[64];
      for (size_t c = 0; c < cubin_count; ++c)
        snprintf(archs + strlen(archs), sizeof archs - strlen(archs), "%s%s", c ? ", " : "", cubins[c].arch);
      if (unchecked->max_sm == unchecked->min_sm)
        snprintf(needs, sizeof needs, "sm_%d%s", unchecked->min_sm, unchecked->specific ? "a" : "");
      else
        snprintf(needs, sizeof needs, "sm_%d or newer", unchecked->min_sm);
      printf("skip: %s: %s exists in %s code only, and the file was built for %s: the technique is not checked\n",
             rung, unchecked->name, needs, archs);
      note("%s: not checked: built for %s, not %s", rung, archs, needs);
      return finish(verdict, SKIP);
    }
  }
  for (size_t i = 0; i < note_count; ++i) printf("FAIL %s\n", notes[i]);
  if (!note_count) {
    printf("%s: the technique shows:", rung);
    for (size_t c = 0; c < check_count; ++c) {
      printf("%s", c ? ";" : "");
      for (size_t i = 0; i < checks[c].fact_count; ++i) printf("%s %s", i ? "," : "", checks[c].facts[i]->name);
      printf(" in");
      for (size_t k = 0; k < checks[c].kernel_count; ++k) printf("%s %s", k ? "," : "", checks[c].kernels[k]);
    }
    printf("\n");
  }
  return finish(verdict, note_count ? FAIL : PASS);
}
