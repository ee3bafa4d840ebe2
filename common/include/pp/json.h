/**
 * @file json.h
 * @brief JSON strings from any bytes: the one escaper behind every JSON file
 * the project writes (the runner's `--json` report, pp-score's results.json).
 *
 * Text that reaches a report can come from a student's program (its failure
 * notes, its log), so it may hold any bytes. What these functions write is
 * always valid JSON in UTF-8: valid UTF-8 characters pass unchanged, every
 * byte that does not start one becomes U+FFFD, quotes and backslashes are
 * escaped, and so is every control character.
 */
#ifndef PP_JSON_H
#define PP_JSON_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Length of the valid UTF-8 character that starts at @p s.
 *
 * Overlong forms, surrogates (U+D800 to U+DFFF), code points past U+10FFFF
 * and the noncharacters U+FFFE and U+FFFF (which XML cannot carry) are not
 * valid, nor is a character cut off by the end of the text.
 * @param s  the text
 * @param n  bytes left in it (at least 1)
 * @return 1 to 4, or 0 where the bytes at @p s are no valid character
 */
size_t pp_utf8_length(const char *s, size_t n);

/**
 * Writes @p n bytes of @p text as the body of a JSON string, without the
 * quotes around it.
 *
 * Valid UTF-8 characters (pp_utf8_length()) are written as they are; each
 * byte that starts none becomes U+FFFD (written as its UTF-8 bytes). `"` and
 * `\` are escaped; `\b`, `\f`, `\n`, `\r` and `\t` take their short escapes,
 * every other control character (U+0000 to U+001F, and U+007F) a `\u00XX`
 * escape. A NUL byte inside the @p n bytes is written as `\u0000`.
 * @param out   where to write
 * @param text  the bytes (any bytes)
 * @param n     how many
 */
void pp_json_escape(FILE *out, const char *text, size_t n);

/**
 * Writes a NUL-terminated string as a JSON string: in quotes, escaped as
 * pp_json_escape() does.
 * @param out   where to write
 * @param text  the string; NULL writes the empty string `""`
 */
void pp_json_string(FILE *out, const char *text);

#ifdef __cplusplus
}
#endif

#endif
