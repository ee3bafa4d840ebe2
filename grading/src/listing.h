/**
 * @file listing.h
 * @brief What pp-technique and pp-symcheck share: allocation that never fails
 * quietly, a line split into fields, and a listing tool (cuobjdump, readelf,
 * nm, objdump) run with its output read line by line.
 *
 * Both tools judge a submission's compiled code from such listings, and both
 * fail closed: memory running out ends the process with exit code 2 (their
 * code for an error) before any verdict is written, never with a pass; each
 * tool decides what the listing tool's exit code, complaint and unparsed
 * line mean for its own verdict.
 */
#ifndef PP_LISTING_H
#define PP_LISTING_H

#include <stddef.h>
#include <stdio.h>

/**
 * @p p itself, unless it is NULL: then prints "error: out of memory" and
 * exits with code 2, no verdict written.
 * @param p  what an allocation returned
 * @return @p p
 */
void *pp_checked(void *p);

/**
 * A NUL-terminated copy of the first @p n bytes of @p text (pp_checked()).
 * @param text  the bytes
 * @param n     how many
 * @return the copy, which the caller frees
 */
char *pp_copy_of(const char *text, size_t n);

/**
 * Grows @p array of `*count` elements of @p size bytes by one zeroed element,
 * doubling its capacity where it is full (pp_checked()).
 * @param array     the array, or NULL for an empty one
 * @param count     its elements, one more on return
 * @param capacity  the elements it has room for, updated
 * @param size      the size of one element
 * @return the array, perhaps moved: its new element is the last
 */
void *pp_grow(void *array, size_t *count, size_t *capacity, size_t size);

/**
 * Splits @p text in place at runs of @p separators (strtok_r()), into at most
 * @p most fields.
 * @param text        the text, changed: each field ends with a NUL
 * @param separators  the characters between fields (" \t": a listing's
 *                    columns)
 * @param fields      where the fields go, room for @p most
 * @param most        how many fields there may be
 * @return the number of fields, or @p most + 1 where there are more
 */
size_t pp_split(char *text, const char *separators, char **fields, size_t most);

/**
 * Reads a listing line by line, each without its line break, and hands each
 * to @p parse until a line does not parse: that line, as it was read (before
 * @p parse changed it), is kept in `*unparsed`, and the rest is read but not
 * parsed, so that a tool writing it still ends. A line holding a NUL byte
 * does not parse either.
 * @param in        the listing
 * @param most      the bytes it may hold: reading stops past them
 *                  (`SIZE_MAX`: no limit)
 * @param parse     returns 0 for a line it read, -1 for one it cannot
 * @param unparsed  set to the first line that did not parse (freed by the
 *                  caller), or NULL
 * @return 0, or -1 where the listing held more than @p most bytes
 */
int pp_read_listing(FILE *in, size_t most, int (*parse)(char *line), char **unparsed);

/** How a listing tool run by pp_run_listing() ended. */
typedef struct pp_listing {
  int code;        /**< its exit code; 127 where it could not be started; -1 where a signal ended it */
  int too_long;    /**< it listed more than the bytes allowed (pp_read_listing() returned -1) */
  char *unparsed;  /**< the first line that did not parse, or NULL (pp_read_listing()) */
  char *complaint; /**< the first line it wrote on stderr, without its line break, or NULL where it wrote
                        nothing there */
} pp_listing;

/**
 * Runs @p command with `LC_ALL=C` (the listings' words untranslated), its
 * stdout read by pp_read_listing() and its stderr kept in a temporary file,
 * and waits for it.
 * @param command  the program and its arguments, NULL-terminated (found on
 *                 `PATH`)
 * @param most     as pp_read_listing()'s
 * @param parse    as pp_read_listing()'s
 * @param run      how it ended; its strings are the caller's to free
 * @return 0, or -1 (after printing "error: cannot run COMMAND: why") where
 *         no process could be made
 */
int pp_run_listing(char *const *command, size_t most, int (*parse)(char *line), pp_listing *run);

#endif
