/*
 * `runq step --plain`: the step view as text, one command a line from a
 * file or a pipe, for scripts, tests and screen readers. Each command's
 * view follows a line "--- CMD"; errors are "! message".
 */
#include <string.h>

#include "db/visible.h"
#include "tui/step.h"

/* A line of text that was not made by step_text_add (a label, a message,
 * the command echoed), visible as the view's lines are. */
static void put_line(FILE *out, const char *prefix, const char *text)
{
    char v[1024];
    text_visible(v, sizeof v, text);
    fprintf(out, "%s%s\n", prefix, v);
}

static void show(struct step *s, FILE *out, int width)
{
    for (int k = 0; k < s->nviews; k++) {
        struct step_text t = { 0 };
        step_render(s, k, width, &t);
        if (s->nviews == 2)
            put_line(out, k ? "=== B: " : "=== A: ", s->v[k].label);
        for (int i = 0; i < t.n; i++)
            fprintf(out, "%s\n", t.line[i]);
        step_text_free(&t);
    }
    fflush(out);
}

int step_plain_main(struct step *s, FILE *in, FILE *out, int width)
{
    char line[256], msg[256];
    show(s, out, width);
    while (!s->quit && fgets(line, sizeof line, in)) {
        line[strcspn(line, "\r\n")] = 0;
        put_line(out, "--- ", line);
        if (step_command(s, line, msg, sizeof msg) < 0) {
            put_line(out, "! ", msg);
            continue;
        }
        if (msg[0])
            put_line(out, "", msg);
        if (!s->quit)
            show(s, out, width);
    }
    return 0;
}
