/*
 * Terminal setup and restore for `runq top` (contract in term.h).
 */
#include <langinfo.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ncurses.h>

#include "tui/term.h"

static volatile sig_atomic_t got_signal;
static bool active, use_color;
static struct sigaction old_int, old_term, old_hup;

static void on_signal(int sig)
{
    got_signal = sig;
}

bool term_hung_up(void)
{
    struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
    return poll(&p, 1, 0) == 1 && (p.revents & (POLLHUP | POLLERR | POLLNVAL));
}

int term_signalled(void)
{
    return got_signal;
}

void term_stop(void)
{
    if (!active)
        return;
    active = false;
    curs_set(1);
    endwin();
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGHUP, &old_hup, NULL);
}

int term_start(struct term_caps *caps)
{
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "runq top: needs a terminal (stdin and stdout)\n");
        return -1;
    }
    setlocale(LC_ALL, "");
    const char *cs = nl_langinfo(CODESET);
    caps->utf8 = cs && !strcmp(cs, "UTF-8") && !getenv("RUNQ_ASCII");

    /* Ours before initscr: ncurses then leaves them alone, and the loop
     * ends through term_stop instead of dying with the terminal raw. */
    struct sigaction sa = { .sa_handler = on_signal };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    /* The terminal hanging up (its tmux pane killed, the window closed)
     * ends the view too, even when the parent left SIGHUP ignored: an
     * ignored disposition survives exec, and a view left over on a dead
     * terminal read ERR forever (two were found alive 49 minutes on). */
    sigaction(SIGHUP, &sa, &old_hup);
    got_signal = 0;

    if (!initscr()) {
        fprintf(stderr, "runq top: cannot start the terminal (TERM=%s)\n", getenv("TERM") ? getenv("TERM") : "");
        return -1;
    }
    active = true;
    atexit(term_stop);
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    curs_set(0);
    set_escdelay(25);

    use_color = has_colors() && !getenv("NO_COLOR");
    if (use_color && start_color() == OK) {
        use_default_colors();
        init_pair(TR_TITLE, COLOR_CYAN, -1);
        init_pair(TR_COLHDR, COLOR_BLACK, COLOR_GREEN);
        init_pair(TR_SORTCOL, COLOR_BLACK, COLOR_CYAN);
        init_pair(TR_SELECT, COLOR_BLACK, COLOR_CYAN);
        init_pair(TR_TAG, COLOR_YELLOW, -1);
        init_pair(TR_WARN, COLOR_WHITE, COLOR_RED);
        init_pair(TR_DIM, COLOR_BLUE, -1);
        init_pair(TR_GOOD, COLOR_GREEN, -1);
        init_pair(TR_MID, COLOR_YELLOW, -1);
        init_pair(TR_HIGH, COLOR_RED, -1);
        init_pair(TR_KEY, COLOR_BLACK, COLOR_CYAN);
    } else {
        use_color = false;
    }
    caps->color = use_color;
    return 0;
}

int term_attr(enum term_role r)
{
    if (use_color) {
        switch (r) {
        case TR_NORMAL: return A_NORMAL;
        case TR_TITLE: return COLOR_PAIR(TR_TITLE) | A_BOLD;
        case TR_WARN: return COLOR_PAIR(TR_WARN) | A_BOLD;
        case TR_SORTCOL: return COLOR_PAIR(TR_SORTCOL) | A_BOLD;
        default: return COLOR_PAIR(r);
        }
    }
    switch (r) {
    case TR_TITLE: return A_BOLD;
    case TR_COLHDR: return A_REVERSE;
    case TR_SORTCOL: return A_REVERSE | A_BOLD | A_UNDERLINE;
    case TR_SELECT: return A_REVERSE;
    case TR_TAG: return A_BOLD;
    case TR_WARN: return A_REVERSE | A_BOLD;
    case TR_DIM: return A_DIM;
    case TR_KEY: return A_REVERSE;
    default: return A_NORMAL;
    }
}
