#!/usr/bin/perl
# make docs: every generated figure in README.md, docs/ and labs/, made
# again from the runs that produce it. docs/testing.md ("Generated
# figures") is the user's guide; this header is the format's contract.
#
# A generated block is a fenced block under a marker line:
#
#   <!-- make docs: id=NAME [group=G] [lines=ERE] [inputs=PATH,PATH] key=HEX -->
#   ```
#   $ build/runq boot --deterministic --cmd "sched probe 2"
#   ...what the command printed (replaced)...
#   ```
#
#   - Each line starting "$ " is a command (continued on the next lines
#     while bash reads it as unfinished: bash -n), run by bash from a scratch folder
#     in which build/, scenarios/, docs/, labs/, tests/ and scripts/ are the tree's;
#     the lines after it, up to the next command or the fence, are its
#     output. Commands are the project's own text, like a Makefile's
#     recipes; nothing read from a user's file reaches them.
#   - lines=ERE keeps only the output lines that match (Perl syntax).
#   - Blocks of one file with the same group= run in order in one folder
#     (a later one reads an earlier one's database). A group with a block
#     run on the host's Linux is real time as a whole: each of its blocks
#     counts as a Linux block (--list, --skip-linux), so a query of the
#     Linux runs' database, or a command that starts a busy loop beside
#     them (`$ setsid sh -c '... taskset -c 1 ...' &`, in a block of its
#     own, and its `$ kill` in another), is never run without them.
#     Linux groups run last and one at a time, with nothing beside them
#     whatever -j says (their runs measure the host's real time).
#     A busy loop bounds its own life (`timeout`): a run that fails
#     between the two blocks leaves no loop behind. A group runs whole
#     (one folder, one database) and is written whole: when one of its
#     blocks is out of date, every block of it shows the new run.
#   - paced=host: a kernel block whose tasks share CPU 0 with runq's
#     tracer, whose turns follow how fast the host drains the trace port:
#     made again on a busier host it can give other digits, so make
#     check's docs_reproduce says SKIP for it, not PASS. Not part of key=.
#   - key= is what the figures were made from: the commands, the options
#     and the contents of their inputs, hashed. The inputs are the files
#     the commands name that exist in the tree (a scenario), inputs=, and
#     by the command's engine: runq's kernel (kernel/, trace/format.h,
#     the Makefile's kernel part) for `runq boot` and the kernel engine; the policy's files
#     (@policy below), the simulator and the scenario parser for paper;
#     the policy, tests/trace/trace_gen.c and trace/format.h for trace_gen (not
#     the rest of tests/trace/: a test script's edit moves no figure); host/engine/linux/ for
#     the host's Linux. How runq formats a
#     table is not an input: after such a change run `make docs FORCE=1`.
#
# In a file of "#" comments (a lab's answers.ref) a block is the marker
# "# make docs: id=NAME [lines=ERE] [inputs=...] key=HEX", one line
# "# $ command", the lines the command printed, and "# end make docs".
#
# A value in the prose comes from a block, never typed:
#
#   <!-- v NAME=ID /REGEX/ -->text<!-- /v -->
#
# text is the first capture of REGEX in block ID's output (its lines
# joined with newlines). `<!-- val NAME=ID /REGEX/ -->` is a value that
# no sentence shows, for a claim. A claim states what a sentence says, on
# values:
#
#   <!-- claim: EXPR -->        e.g.  p50_six > 2.5 * p50_three
#
# EXPR is numbers, value names, + - * / ( ), comparisons, && || and !.
#
# Usage: scripts/docs.pl [--check] [--force] [--skip-linux] [--list] [-j N] [--only ID[,ID]] [FILE...]
#   (no flag)  run the blocks whose key changed (or that have none), write
#              them and their values in place, then check every claim
#   --check    run nothing: say which blocks are out of date ("run make
#              docs"), which values differ from their blocks, and which
#              claims fail; exit 1 if any
#   --force    run every block (or the --only ones) even when its key holds
#   --skip-linux  leave the blocks run on the host's Linux alone
#   --list     one line a block: where, id, deterministic, host-paced or linux, and
#              whether it is current
# A block whose run fails keeps its old text; the run is named with its
# error and the exit status is 1. A file is written whole (a new file
# renamed over it), never half.
use strict;
use warnings;
use Digest::SHA qw(sha256_hex);
use File::Path qw(make_path remove_tree);
use Cwd qw(getcwd);

my ($check, $force, $jobs, $skip_linux, $list, %only) = (0, 0, 1, 0, 0);
my @files;
while (@ARGV) {
    my $a = shift @ARGV;
    if ($a eq '--check') { $check = 1 }
    elsif ($a eq '--force') { $force = 1 }
    elsif ($a eq '--skip-linux') { $skip_linux = 1 }
    elsif ($a eq '--list') { $list = 1 }
    elsif ($a eq '-j') { $jobs = shift @ARGV // usage("-j needs a number") }
    elsif ($a =~ /^-j(\d+)$/) { $jobs = $1 }
    elsif ($a eq '--only') { $only{$_} = 1 for split /,/, (shift @ARGV // usage("--only needs ids")) }
    elsif ($a eq '--help' || $a eq '-h') { usage() }
    elsif ($a =~ /^-/) { usage("unknown flag $a") }
    else { push @files, $a }
}
usage("-j wants a count from 1 to 64, not $jobs") unless $jobs =~ /^\d+$/ && $jobs >= 1 && $jobs <= 64;

sub usage {
    my ($why) = @_;
    print STDERR "docs.pl: $why\n" if $why;
    print STDERR "usage: scripts/docs.pl [--check] [--force] [--skip-linux] [--list] [-j N] [--only ID[,ID]] [FILE...]\n";
    exit($why ? 2 : 0);
}

-d 'kernel' && -f 'Makefile' or die "docs.pl: run it from the repository root\n";
my $root = getcwd();
# The pages named are the ones run, written and checked; every page is
# read, so that a value may copy from a block on another page.
my @all = grep { -f } ('README.md', sort(glob('docs/*.md')), sort(glob('labs/*/*.md')), sort(glob('labs/*/answers.ref')));
my %target = map { $_ => 1 } (@files ? @files : @all);
my %seen;
@files = grep { !$seen{$_}++ } (@files, @all);

# ---- parse ----

# A command goes on to the next line while bash reads it as unfinished (a
# quote or a parenthesis still open): bash -n, which runs nothing.
sub incomplete {
    my ($t) = @_;
    my $pid = open(my $null, '-|') // die "docs.pl: fork: $!\n";
    if (!$pid) {
        open STDERR, '>', '/dev/null';
        exec 'bash', '-n', '-c', $t;
        exit 127;
    }
    local $/;
    <$null>;
    close $null;
    return $? != 0;
}

my (@blocks, %by_id, @values, @claims, %text);
my $errors = 0;

sub complain { my ($where, $msg) = @_; print STDERR "$where: $msg\n"; $errors++ }

for my $f (@files) {
    open my $fh, '<', $f or die "docs.pl: $f: $!\n";
    my @l = <$fh>;
    close $fh;
    $text{$f} = \@l;
    my $group_n = 0;
    for (my $i = 0; $i < @l; $i++) {
        # (one in backquotes is the syntax shown, not a value: docs/testing.md)
        while ($l[$i] =~ /(?<!`)<!-- v (\w+)=([\w.-]+) \/(.*?)\/ -->(.*?)<!-- \/v -->/g) {
            push @values, { file => $f, line => $i + 1, name => $1, id => $2, re => $3, text => $4 };
        }
        # A value a claim needs and no sentence shows.
        while ($l[$i] =~ /(?<!`)<!-- val (\w+)=([\w.-]+) \/(.*?)\/ -->/g) {
            push @values, { file => $f, line => $i + 1, name => $1, id => $2, re => $3, hidden => 1 };
        }
        if ($l[$i] =~ /(?<!`)<!-- claim: (.*?) -->/) {
            push @claims, { file => $f, line => $i + 1, expr => $1 };
        }
        if ($l[$i] =~ /^# make docs: (.*?)\s*$/) {
            parse_hash_block($f, \@l, \$i, $1);
            next;
        }
        next unless $l[$i] =~ /^<!-- make docs: (.*?) -->\s*$/;
        my $opts = $1;
        my %o;
        for my $kv (split ' ', $opts) {
            $kv =~ /^(id|group|lines|inputs|paced|key)=(.+)$/ or do { complain("$f:" . ($i + 1), "unknown marker option '$kv'"); next };
            $o{$1} = $2;
        }
        my $where = "$f:" . ($i + 1);
        $o{id} or do { complain($where, "a make docs marker needs id="); next };
        !defined $o{paced} || $o{paced} eq 'host' or do { complain($where, "paced= takes 'host', not '$o{paced}'"); next };
        # A page read only for its values may hold the same ids as a copy
        # of it that is named (make check's docs_reproduce): the named one
        # counts; two named pages with one id are an error.
        if ($by_id{ $o{id} }) {
            complain($where, "id=$o{id} is also at $by_id{$o{id}}{where}") if $target{$f};
            next;
        }
        $i + 1 < @l && $l[$i + 1] =~ /^```/ or do { complain($where, "the marker must stand right above a fenced block"); next };
        my $b = { file => $f, where => $where, marker => $i, id => $o{id}, group => $o{group}, lines => $o{lines},
                  inputs => $o{inputs}, paced => $o{paced}, key => $o{key} // '', cmds => [] };
        my $j = $i + 2;
        my $cmd;
        for (; $j < @l && $l[$j] !~ /^```/; $j++) {
            if ($l[$j] =~ /^\$ (.*)$/s && !($cmd && $cmd->{open})) {
                $cmd = { text => $1, first => $j, out => $j + 1 };
                $cmd->{open} = incomplete($cmd->{text});
                push @{ $b->{cmds} }, $cmd;
            } elsif ($cmd && $cmd->{open}) {
                $cmd->{text} .= $l[$j];
                $cmd->{out} = $j + 1;
                $cmd->{open} = incomplete($cmd->{text});
            }
        }
        $j < @l or do { complain($where, "block $o{id} has no closing fence"); next };
        @{ $b->{cmds} } or do { complain($where, "block $o{id} has no '\$ ' command line"); next };
        $b->{close} = $j;
        for my $k (0 .. $#{ $b->{cmds} }) {
            my $c = $b->{cmds}[$k];
            chomp $c->{text};
            $c->{end} = $k < $#{ $b->{cmds} } ? $b->{cmds}[$k + 1]{first} : $j;
            $c->{old} = join '', @l[ $c->{out} .. $c->{end} - 1 ];
        }
        push @blocks, $b;
        $by_id{ $b->{id} } = $b;
        $i = $j;
    }
}

# The form for a file of "# comments" (a lab's answers.ref): the marker,
# one "# $ command" line, the lines it printed, and "# end make docs".
sub parse_hash_block {
    my ($f, $l, $ip, $opts) = @_;
    my $i = $$ip;
    my $where = "$f:" . ($i + 1);
    my %o;
    for my $kv (split ' ', $opts) {
        $kv =~ /^(id|lines|inputs|key)=(.+)$/ or do { complain($where, "unknown marker option '$kv'"); return };
        $o{$1} = $2;
    }
    $o{id} or do { complain($where, "a make docs marker needs id="); return };
    if ($by_id{ $o{id} }) {
        complain($where, "id=$o{id} is also at $by_id{$o{id}}{where}") if $target{$f};
        return;
    }
    $i + 1 < @$l && $l->[ $i + 1 ] =~ /^# \$ (.*)$/ or do { complain($where, "the marker needs a '# \$ command' line below it"); return };
    my $c = { text => $1, first => $i + 1, out => $i + 2 };
    my $j = $i + 2;
    $j++ while $j < @$l && $l->[$j] !~ /^# end make docs\s*$/;
    $j < @$l or do { complain($where, "block $o{id} has no '# end make docs' line"); return };
    $c->{end} = $j;
    $c->{old} = join '', @$l[ $c->{out} .. $j - 1 ];
    my $b = { file => $f, where => $where, marker => $i, id => $o{id}, lines => $o{lines}, inputs => $o{inputs},
              key => $o{key} // '', cmds => [$c], close => $j, hash => 1 };
    push @blocks, $b;
    $by_id{ $b->{id} } = $b;
    $$ip = $j;
}

# ---- keys ----

my %path_hash;
sub hash_path {
    my ($p) = @_;
    return $path_hash{$p} if exists $path_hash{$p};
    # The Makefile's kernel part alone (its "---- kernel ----" section and
    # every line naming the kernel's flags or image): a change to how the
    # host or the tests build leaves the kernel's figures alone.
    if ($p eq 'Makefile:kernel') {
        open my $m, '<', 'Makefile' or return $path_hash{$p} = 'none';
        my ($in, $text) = (0, '');
        while (<$m>) {
            $in = 1 if /^# ---- kernel ----/;
            $in = 0 if /^# ---- host ----/;
            $text .= $_ if $in || /KCFLAGS|\$\(KERNEL\)|\$\(KOBJ\)/;
        }
        close $m;
        return $path_hash{$p} = sha256_hex($text);
    }
    my @f;
    if (-d $p) {
        if (-d '.git' && open my $g, '-|', 'git', 'ls-files', '-z', '--', $p) {
            local $/;
            @f = grep { -f } split /\0/, <$g> // '';
            close $g;
        }
        @f = split /\n/, `find '$p' -type f` unless @f; # a tree without git: the folder's files
        @f = sort grep { !m{(^|/)build/} } @f;
    } else {
        @f = ($p);
    }
    my $d = Digest::SHA->new(256);
    for my $x (@f) {
        $d->add("$x\0");
        $d->addfile($x) if -f $x;
    }
    return $path_hash{$p} = $d->hexdigest;
}

# The policy as the host compiles it (the Makefile's POLICY_SRC and the
# headers those include): paper and trace_gen run this, not the kernel's
# core, so a change to the core leaves their figures alone.
my @policy = grep { -e } map { ("kernel/sched/$_.c", "kernel/sched/$_.h") } qw(decide rr rt eevdf eevdf_tree weights balance_rules);
push @policy, grep { -e } qw(kernel/sched/policy.h kernel/sched/eevdf_features.h kernel/lib/bug.h kernel/lib/types.h);

sub inputs_of {
    my ($b) = @_;
    my %p;
    for my $c (@{ $b->{cmds} }) {
        my $t = $c->{text};
        my $kernel = $t =~ /runq (boot|lab)\b/ || ($t =~ /runq experiment\b/ && $t !~ /--engine (sim|linux)\b/);
        my $sim = $t =~ /runq sim\b/ || $t =~ /--engine [\w,]*sim/;
        my $linux = $t =~ /--engine [\w,]*linux/;
        if ($kernel) { $p{$_} = 1 for qw(kernel trace/format.h Makefile:kernel) }
        if ($sim || $t =~ /trace_gen\b/) { $p{$_} = 1 for @policy }
        if ($sim) { $p{$_} = 1 for qw(host/engine/sim host/scenario) }
        if ($linux) { $p{$_} = 1 for qw(host/engine/linux) }
        if ($t =~ /trace_gen\b/) { $p{$_} = 1 for qw(tests/trace/trace_gen.c trace/format.h) } # its one source, and the wire it writes
        for my $tok ($t =~ m{((?:scenarios|docs|labs|tests)/[\w./-]+)}g) {
            $p{$tok} = 1 if -e $tok;
        }
    }
    if ($b->{inputs}) { $p{$_} = 1 for split /,/, $b->{inputs} }
    return sort keys %p;
}

$_->{target} = $target{ $_->{file} } for @blocks;
@values = grep { $target{ $_->{file} } } @values;
@claims = grep { $target{ $_->{file} } } @claims;

my %group_prev;
for my $b (@blocks) {
    my $d = Digest::SHA->new(256);
    $d->add("runq-docs-1\0", join("\0", map { $_->{text} } @{ $b->{cmds} }), "\0", $b->{lines} // '', "\0");
    for my $p (inputs_of($b)) {
        -e $p || $p eq 'Makefile:kernel' or do { complain($b->{where}, "input $p does not exist"); next };
        $d->add("$p=" . hash_path($p) . "\0");
    }
    # A group's later block depends on the earlier ones' runs.
    my $g = $b->{group} ? "$b->{file}\0$b->{group}" : undef;
    $d->add("after=$group_prev{$g}\0") if $g && $group_prev{$g};
    $b->{want} = substr($d->hexdigest, 0, 16);
    $group_prev{$g} = $b->{want} if $g;
    $b->{stale} = $b->{key} ne $b->{want};
}

# ---- run ----

my $cache = 'build/docs-cache';
make_path($cache);
my @jobs;   # a job: the blocks run together (a group, or one block)
{
    my %g;
    for my $b (@blocks) {
        my $gk = $b->{group} ? "$b->{file}\0$b->{group}" : "\0$b->{id}";
        push @jobs, ($g{$gk} = { name => $b->{group} // $b->{id}, blocks => [] }) unless $g{$gk};
        push @{ $g{$gk}{blocks} }, $b;
    }
}
# A block run on the host's Linux: real time, never the same digits twice.
# So is every block of a group that has one: a query of its database, a
# busy loop started or stopped beside its runs (--skip-linux and
# docs_reproduce leave the whole group alone).
my %linux_group;
for my $b (@blocks) {
    $linux_group{"$b->{file}\0$b->{group}"} = 1
        if $b->{group} && grep { $_ eq 'host/engine/linux' } inputs_of($b);
}
sub is_linux {
    my ($b) = @_;
    return 1 if $b->{group} && $linux_group{"$b->{file}\0$b->{group}"};
    scalar grep { $_ eq 'host/engine/linux' } inputs_of($b);
}
my $selected = sub {
    my ($b) = @_;
    return 0 if !$b->{target} || ($skip_linux && is_linux($b));
    !%only || $only{ $b->{id} } || ($b->{group} && $only{ $b->{group} });
};
if ($list) {
    printf "%s\t%s\t%s\t%s\n", $_->{where}, $_->{id}, (is_linux($_) ? 'linux' : $_->{paced} ? 'host-paced' : 'deterministic'),
        ($_->{stale} ? 'out-of-date' : 'current') for grep { $_->{target} } @blocks;
    exit 0;
}

sub cached { my ($b) = @_; -f "$cache/$b->{want}.done" }

my @todo;
unless ($check) {
    my %making;   # two blocks of one key (the same commands, the same inputs) are one run
    for my $job (@jobs) {
        my @need = grep { $selected->($_) && (($force) || ($_->{stale} && !cached($_))) } @{ $job->{blocks} };
        next unless @need;
        next unless grep { !$making{ $_->{want} } } @{ $job->{blocks} };
        $making{ $_->{want} } = 1 for @{ $job->{blocks} };
        push @todo, $job;
    }
}

my (%running, %ran);
my ($done, $failed) = (0, 0);
my $scratch = "$root/build/docs-run";
sub start_job {
    my ($job) = @_;
    my $pid = fork() // die "docs.pl: fork: $!\n";
    if ($pid) { $running{$pid} = $job; $job->{t} = time; return }
    my $dir = "$scratch/" . $job->{blocks}[0]{want};
    remove_tree($dir);
    make_path($dir);
    for my $e (qw(build scenarios docs labs tests scripts)) { symlink("$root/$e", "$dir/$e") if -e "$root/$e" }
    chdir $dir or exit 3;
    for my $b (@{ $job->{blocks} }) {
        for my $k (0 .. $#{ $b->{cmds} }) {
            my $out = "$root/$cache/$b->{want}.$k";
            my $rc = system('bash', '-o', 'pipefail', '-c', "{\n$b->{cmds}[$k]{text}\n} </dev/null >'$out.tmp' 2>'$out.err'");
            # 141: a writer stopped by SIGPIPE when its reader had what it
            # wanted (`| grep -m 3`, `| head`), which is how the page reads.
            if ($rc != 0 && $rc >> 8 != 141) {
                open my $e, '>>', "$root/$cache/$b->{want}.failed";
                printf $e "%s: the command exited %d: %s\n", $b->{where}, $rc >> 8, $b->{cmds}[$k]{text};
                exit 1;
            }
            rename "$out.tmp", $out;
        }
        open my $ok, '>', "$root/$cache/$b->{want}.done";
        close $ok;
    }
    chdir $root;
    remove_tree($dir);
    exit 0;
}

if (@todo) {
    my $n = @todo;
    print STDERR "make docs: $n run" . ($n == 1 ? '' : 's') . " to make (" . join(', ', map { $_->{name} } @todo) . "), $jobs at a time\n";
    # A run on the host's Linux is real time: it goes after the others and
    # alone, never beside a QEMU or another Linux group's runs (or its
    # busy loop), whatever -j says.
    for my $job (@todo) { $job->{linux} = scalar grep { is_linux($_) } @{ $job->{blocks} } }
    my @queue = ((grep { !$_->{linux} } @todo), (grep { $_->{linux} } @todo));
    while (@queue || %running) {
        while (@queue && keys(%running) < $jobs && !grep { $_->{linux} } values %running) {
            last if $queue[0]{linux} && %running;
            start_job(shift @queue);
        }
        my $pid = wait();
        last if $pid < 0;
        my $job = delete $running{$pid} or next;
        $done++;
        my $secs = time - $job->{t};
        if ($? != 0) {
            $failed++;
            my $why = '';
            for my $b (@{ $job->{blocks} }) {
                my $f = "$cache/$b->{want}.failed";
                next unless -f $f;
                $why .= `cat '$f'`;
                unlink $f;
                my @err = glob("$cache/$b->{want}.*.err");
                $why .= "  " . join("  ", `tail -n 3 '$_'`) for @err;
            }
            print STDERR "make docs: [$done/$n] $job->{name}: FAILED after ${secs} s\n$why";
        } else {
            $ran{ $_->{want} } = 1 for @{ $job->{blocks} };
            my $left = $n - $done;
            print STDERR "make docs: [$done/$n] $job->{name}: made in ${secs} s" . ($left ? ", $left to go" : '') . "\n";
        }
    }
}

# ---- write ----

sub output_of {
    my ($b, $k) = @_;
    my $f = "$cache/$b->{want}.$k";
    open my $fh, '<', $f or return undef;
    my @o = <$fh>;
    close $fh;
    if (defined $b->{lines}) { my $re = $b->{lines}; @o = grep { /$re/ } @o }
    s/[ \t]+$// for @o;   # trailing blanks: editors strip them, the block would never match
    $_ .= "\n" for grep { !/\n$/ } @o;
    return join '', @o;
}

my %changed;
unless ($check) {
    for my $b (@blocks) {
        # A group that ran is written whole, its current blocks too: every
        # block of a group shows one run (a query beside the runs it read).
        next unless $selected->($b) && ($b->{stale} || $force || $ran{ $b->{want} }) && cached($b);
        my @new;
        my $ok = 1;
        for my $k (0 .. $#{ $b->{cmds} }) {
            my $o = output_of($b, $k);
            defined $o or do { $ok = 0; last };
            push @new, $o;
        }
        next unless $ok;
        $b->{new} = \@new;
        $changed{ $b->{file} } = 1;
    }
    for my $f (sort keys %changed) {
        my @l = @{ $text{$f} };
        # Replace from the bottom so that earlier line numbers hold.
        for my $b (sort { $b->{marker} <=> $a->{marker} } grep { $_->{file} eq $f && $_->{new} } @blocks) {
            for my $k (reverse 0 .. $#{ $b->{cmds} }) {
                my $c = $b->{cmds}[$k];
                splice @l, $c->{out}, $c->{end} - $c->{out}, $b->{new}[$k];
                $c->{old} = $b->{new}[$k];
            }
            $l[ $b->{marker} ] =~ s/ key=\w+//;
            if ($b->{hash}) { $l[ $b->{marker} ] =~ s/\s*$/ key=$b->{want}\n/ }
            else { $l[ $b->{marker} ] =~ s/ -->\s*$/ key=$b->{want} -->\n/ }
            $b->{key} = $b->{want};
            $b->{stale} = 0;
        }
        $text{$f} = [ split /^/, join '', @l ];
    }
}

# Values: from the blocks' output as the files now hold it.
my %val;
for my $v (@values) {
    my $b = $by_id{ $v->{id} } or do { complain("$v->{file}:$v->{line}", "value $v->{name}: no block id=$v->{id}"); next };
    my $out = join '', map { $_->{old} } @{ $b->{cmds} };
    my $re = $v->{re};
    my ($got) = $out =~ /$re/m;
    defined $got or do { complain("$v->{file}:$v->{line}", "value $v->{name}: /$re/ finds nothing in block $v->{id}"); next };
    $val{ $v->{name} } = $got;
    $v->{want} = $got;
}
my %vfix;
for my $v (grep { !$_->{hidden} && defined $_->{want} && $_->{want} ne $_->{text} } @values) {
    if ($check) {
        complain("$v->{file}:$v->{line}", "value $v->{name} reads '$v->{text}', its block says '$v->{want}': run make docs");
    } else {
        $vfix{ $v->{file} } = 1;
    }
}
for my $f (sort keys %vfix) {
    for my $line (@{ $text{$f} }) {
        $line =~ s{(?<!`)(<!-- v (\w+)=[\w.-]+ /.*?/ -->)(.*?)(<!-- /v -->)}{ $1 . ($val{$2} // $3) . $4 }ge;
    }
    $changed{$f} = 1;
}
for my $f (sort keys %changed) {
    next if $check;
    open my $fh, '>', "$f.docs-tmp" or die "docs.pl: $f.docs-tmp: $!\n";
    print $fh @{ $text{$f} };
    close $fh or die "docs.pl: $f.docs-tmp: $!\n";
    rename "$f.docs-tmp", $f or die "docs.pl: $f: $!\n";
}

# ---- check ----

my @stale = grep { $_->{stale} && $_->{target} } @blocks;
for my $b (@stale) {
    my $say = !$check && $selected->($b) ? 'still out of date (its run failed)' : 'out of date';
    complain($b->{where}, "block $b->{id} is $say: run make docs");
}
my $claims_failed = 0;
for my $c (@claims) {
    my $e = $c->{expr};
    my $bad;
    (my $x = $e) =~ s/\b([A-Za-z_]\w*)\b/exists $val{$1} ? do { my $n = $val{$1}; $n =~ s{[,\s]}{}g; $n } : do { $bad = $1; 0 }/ge;
    if ($bad) { complain("$c->{file}:$c->{line}", "claim '$e': no value $bad"); $claims_failed++; next }
    if ($x !~ m{^[-+*/()<>=!&|.\d\s]+$}) { complain("$c->{file}:$c->{line}", "claim '$e': '$x' is not arithmetic"); $claims_failed++; next }
    my $r = eval $x;
    if ($@ || !$r) {
        complain("$c->{file}:$c->{line}", "claim '$e' is false ($x): the sentence no longer holds");
        $claims_failed++;
    }
}
printf STDERR "make docs: %d blocks (%d out of date), %d values, %d claims (%d false)%s\n",
    scalar(grep { $_->{target} } @blocks), scalar @stale,
    scalar @values, scalar @claims, $claims_failed, ($failed ? ", $failed runs failed" : '');
exit(($errors || $failed) ? 1 : 0);
