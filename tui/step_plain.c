/*
 * `runq step --plain`: the step view as text, one command a line from a
 * file or a pipe, for scripts, tests and screen readers. Each command's
 * view follows a line "--- CMD"; errors are "! message".
 */
#include <string.h>

#include "tui/step.h"

static void show(struct step *s, FILE *out, int width)
{
    for (int k = 0; k < s->nviews; k++) {
        struct step_text t = { 0 };
        step_render(s, k, width, &t);
        if (s->nviews == 2)
            fprintf(out, "=== %s: %s\n", k ? "B" : "A", s->v[k].label);
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
        fprintf(out, "--- %s\n", line);
        if (step_command(s, line, msg, sizeof msg) < 0) {
            fprintf(out, "! %s\n", msg);
            continue;
        }
        if (msg[0])
            fprintf(out, "%s\n", msg);
        if (!s->quit)
            show(s, out, width);
    }
    return 0;
}
