/* The FMI 2.0 logger callback handed to FMUs. Its C type is variadic (a printf format and its
 * arguments), which stable Rust cannot define, so this function formats the message with
 * vsnprintf and passes the finished text to Rust's tandem_fmi2_log_message. */

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* Defined in logging.rs. */
void tandem_fmi2_log_message(void *environment, int status, const char *category,
                             const char *message);

/* Most messages fit here; longer ones are formatted again into a heap buffer of their size. */
#define INLINE_CAPACITY 1024

/* Appended when a long message had to stay truncated because no memory was left. */
static const char TRUNCATED[] = "... [truncated]";

void tandem_fmi2_logger(void *environment, const char *instance, int status,
                        const char *category, const char *format, ...) {
    char inline_text[INLINE_CAPACITY];
    char *heap_text = NULL;
    const char *text = inline_text;
    va_list arguments;
    int length;

    (void)instance; /* the Rust side knows the instance it logs for */
    if (format == NULL) {
        tandem_fmi2_log_message(environment, status, category, NULL);
        return;
    }
    va_start(arguments, format);
    length = vsnprintf(inline_text, sizeof inline_text, format, arguments);
    va_end(arguments);
    if (length < 0) {
        /* A format vsnprintf rejects: show it as it is rather than nothing. */
        text = format;
    } else if ((size_t)length >= sizeof inline_text) {
        heap_text = malloc((size_t)length + 1);
        if (heap_text != NULL) {
            va_start(arguments, format);
            vsnprintf(heap_text, (size_t)length + 1, format, arguments);
            va_end(arguments);
            text = heap_text;
        } else {
            snprintf(inline_text + sizeof inline_text - sizeof TRUNCATED, sizeof TRUNCATED,
                     "%s", TRUNCATED);
        }
    }
    tandem_fmi2_log_message(environment, status, category, text);
    free(heap_text);
}
