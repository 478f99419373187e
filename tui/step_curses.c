/*
 * `runq step` on a terminal: the view of tui/step.c drawn with ncurses, one
 * pane per trace (two side by side with --compare), keys as in step.h:
 * n/→ p/← N P b g / ? m ' c r q, PgDn/PgUp (or space) to scroll.
 */
#include <locale.h>
#include <string.h>

#include <curses.h>

#include "db/visible.h"
#include "tui/step.h"

static void prompt(const char *what, char *buf, int len)
{
    move(LINES - 1, 0);
    clrtoeol();
    attron(A_BOLD);
    addstr(what);
    attroff(A_BOLD);
    echo();
    curs_set(1);
    getnstr(buf, len - 1);
    noecho();
    curs_set(0);
}

static void draw_pane(struct step *s, int k, int x0, int w, int scroll)
{
    struct step_text t = { 0 };
    step_render(s, k, w, &t);
    int rows = LINES - 1;
    for (int r = 0; r < rows; r++) {
        int i = r == 0 ? 0 : r + scroll;
        if (i >= t.n)
            break;
        const char *l = t.line[i];
        int attr = 0;
        if (i == 0)
            attr = A_REVERSE;
        else if (l[0] == '>')
            attr = A_BOLD;
        else if (!strncmp(l, "why ", 4) || !strncmp(l, "cpu", 3))
            attr = A_BOLD | A_UNDERLINE;
        else if (l[0] == ' ' && l[1] == ' ' && l[2] == '*')
            attr = A_BOLD;
        attron(attr);
        mvaddnstr(r, x0, l, w - 1);
        attroff(attr);
    }
    step_text_free(&t);
}

int step_curses_main(struct step *s)
{
    setlocale(LC_ALL, "");
    if (!initscr()) {
        fprintf(stderr, "runq step: cannot start the terminal; try --plain\n");
        return 1;
    }
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);
    char msg[256] = "", buf[128], cmd[160];
    int scroll = 0;
    while (!s->quit) {
        erase();
        int w = s->nviews == 2 ? COLS / 2 : COLS;
        for (int k = 0; k < s->nviews; k++)
            draw_pane(s, k, k * w, w, scroll);
        if (s->nviews == 2)
            mvvline(0, w - 1, ACS_VLINE, LINES - 1);
        move(LINES - 1, 0);
        attron(A_REVERSE);
        char shown[1024]; /* a message may name a task or a mark: db/visible.h */
        text_visible(shown, sizeof shown, msg);
        addnstr(msg[0] ? shown : " n/p event  N/P pick  b time  g event  / search  m mark  ' back  c cpu  r rewind  q quit ",
                COLS - 1);
        attroff(A_REVERSE);
        refresh();
        int ch = getch();
        msg[0] = 0;
        cmd[0] = 0;
        switch (ch) {
        case 'n': case KEY_RIGHT: case 'l': snprintf(cmd, sizeof cmd, "n"); break;
        case 'p': case KEY_LEFT: case 'h': snprintf(cmd, sizeof cmd, "p"); break;
        case 'N': case 'P': case 'r': case 'q': snprintf(cmd, sizeof cmd, "%c", ch); break;
        case ' ': case KEY_NPAGE: scroll += LINES / 2; continue;
        case KEY_PPAGE: scroll = scroll > LINES / 2 ? scroll - LINES / 2 : 0; continue;
        case KEY_DOWN: case 'j': scroll++; continue;
        case KEY_UP: case 'k': if (scroll) scroll--; continue;
        case 'b': prompt("time (+us from the start, or 12ms, 1.5s; @ns absolute): ", buf, sizeof buf);
            snprintf(cmd, sizeof cmd, "b %s", buf); break;
        case 'a': prompt("align by (time, event, mark NAME, wake TASK): ", buf, sizeof buf);
            snprintf(cmd, sizeof cmd, "a %s", buf); break;
        case 'g': prompt("event number: ", buf, sizeof buf); snprintf(cmd, sizeof cmd, "g %s", buf); break;
        case '/': case '?': prompt(ch == '/' ? "search forward: " : "search back: ", buf, sizeof buf);
            snprintf(cmd, sizeof cmd, "%c %s", ch, buf); break;
        case 'c': prompt("cpu (- follows the events): ", buf, sizeof buf); snprintf(cmd, sizeof cmd, "c %s", buf); break;
        case 'm': case '\'': {
            int l = getch();
            snprintf(cmd, sizeof cmd, "%c %c", ch, l >= 'a' && l <= 'z' ? l : 'a');
            break;
        }
        case KEY_RESIZE: continue;
        default: snprintf(msg, sizeof msg, " unknown key; q quits "); continue;
        }
        if (step_command(s, cmd, msg, sizeof msg) == 0 && cmd[0] != 'm')
            scroll = 0;
        if (msg[0]) {
            memmove(msg + 1, msg, strlen(msg) + 1);
            msg[0] = ' ';
        }
    }
    endwin();
    return 0;
}
