/*
 * runq top --linux (cli/top_linux.c): argv as cmd_top has it.
 */
#ifndef RUNQ_CLI_TOP_LINUX_H
#define RUNQ_CLI_TOP_LINUX_H

int top_linux_main(int argc, char **argv);

#endif
