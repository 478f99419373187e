/*
 * `runq step` on a terminal: the view of tui/step.c drawn with ncurses, one
 * pane per trace (two side by side with --compare). The keys are
 * step.h's table of commands (step_cmds): a key names a row, whose
 * argument the terminal asks for (a line at its prompt, or the next key
 * for a mark), and the row's command runs as --plain would run it.
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

/* step.h's name for ncurses' key code ch (a character is itself). */
static int step_key(int ch)
{
    switch (ch) {
    case KEY_UP: return STEP_KEY_UP;
    case KEY_DOWN: return STEP_KEY_DOWN;
    case KEY_LEFT: return STEP_KEY_LEFT;
    case KEY_RIGHT: return STEP_KEY_RIGHT;
    case KEY_PPAGE: return STEP_KEY_PGUP;
    case KEY_NPAGE: return STEP_KEY_PGDN;
    default: return ch >= 0 && ch < 0x100 ? ch : -1;
    }
}

/* The command line key ch's row runs ("" none). */
static void command_of(const struct step_cmd *c, char *cmd, size_t len)
{
    char buf[128];
    switch (c->arg) {
    case STEP_ARG_LINE:
        prompt(c->prompt, buf, sizeof buf);
        snprintf(cmd, len, "%c %s", c->word, buf);
        return;
    case STEP_ARG_LETTER: {
        int l = getch();
        snprintf(cmd, len, "%c %c", c->word, l >= 'a' && l <= 'z' ? l : 'a');
        return;
    }
    default:
        snprintf(cmd, len, "%c", c->word);
        return;
    }
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
    char msg[256] = "", cmd[160], keys[256];
    step_keys_line(keys, sizeof keys);
    s->scroll = 0;
    while (!s->quit) {
        erase();
        int w = s->nviews == 2 ? COLS / 2 : COLS;
        for (int k = 0; k < s->nviews; k++)
            draw_pane(s, k, k * w, w, s->scroll);
        if (s->nviews == 2)
            mvvline(0, w - 1, ACS_VLINE, LINES - 1);
        move(LINES - 1, 0);
        attron(A_REVERSE);
        char shown[1024]; /* a message may name a task or a mark: db/visible.h */
        text_visible(shown, sizeof shown, msg);
        addnstr(msg[0] ? shown : keys, COLS - 1);
        attroff(A_REVERSE);
        refresh();
        int ch = getch();
        msg[0] = 0;
        if (ch == KEY_RESIZE)
            continue;
        const struct step_cmd *c = step_cmd_of_key(step_key(ch));
        if (!c) {
            snprintf(msg, sizeof msg, " unknown key; q quits ");
            continue;
        }
        s->rows = LINES;
        if (!c->word) { /* the terminal's own: scrolling */
            c->act(s, step_key(ch), "", msg, sizeof msg);
            continue;
        }
        command_of(c, cmd, sizeof cmd);
        step_command(s, cmd, msg, sizeof msg);
        if (msg[0]) {
            memmove(msg + 1, msg, strlen(msg) + 1);
            msg[0] = ' ';
        }
    }
    endwin();
    return 0;
}
