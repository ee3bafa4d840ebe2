#include "pp/json.h"

#include <string.h>

size_t pp_utf8_length(const char *text, size_t n) {
  static const unsigned long least[] = {0, 0, 0x80, 0x800, 0x10000}; /* below: overlong */
  const unsigned char *s = (const unsigned char *)text;
  size_t len = s[0] < 0x80 ? 1 : s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC0 ? 2 : 0;
  if (len == 1) return 1;
  if (!len || len > n || s[0] > 0xF4) return 0;
  unsigned long c = s[0] & (0x7Fu >> len);
  for (size_t k = 1; k < len; ++k) {
    if ((s[k] & 0xC0) != 0x80) return 0;
    c = c << 6 | (s[k] & 0x3F);
  }
  int bad = c < least[len] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF) || c == 0xFFFE || c == 0xFFFF;
  return bad ? 0 : len;
}

void pp_json_escape(FILE *out, const char *text, size_t n) {
  static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */
  for (size_t i = 0; i < n;) {
    unsigned char c = (unsigned char)text[i];
    const char *short_escape = c ? strchr("\b\f\n\r\t\"\\", c) : NULL;
    size_t len = pp_utf8_length(text + i, n - i);
    if (short_escape) {
      fputc('\\', out);
      fputc("bfnrt\"\\"[short_escape - "\b\f\n\r\t\"\\"], out);
    } else if (c < 0x20 || c == 0x7F) {
      fprintf(out, "\\u%04x", c);
    } else if (len) {
      fwrite(text + i, 1, len, out);
    } else {
      fputs(replacement, out);
    }
    i += len ? len : 1;
  }
}

void pp_json_string(FILE *out, const char *text) {
  fputc('"', out);
  if (text) pp_json_escape(out, text, strlen(text));
  fputc('"', out);
}
