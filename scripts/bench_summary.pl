#!/usr/bin/env perl
# make bench's last table (tests/bench.sh): every target the benches
# printed, its value, whether it is met, and the value the previous run
# gave, so that a regression shows the day it lands.
#
# A bench says a target in one line of its output (docs/testing.md,
# "Benchmarks"):
#   target NAME VALUE OP GOAL [UNIT...]
# NAME is [A-Za-z0-9_.-]+, OP one of < <= > >=, GOAL a number, VALUE a
# number or - (not measured this run: a part that was skipped). A name
# printed twice keeps its last value.
#
# usage: scripts/bench_summary.pl [--results FILE] [OUTPUT...]
#   OUTPUT   the benches' output (default: standard input)
#   FILE     the results of the previous run (JSON, read when it exists),
#            written again with this run's values; a target this run did
#            not print keeps its previous entry. Without --results nothing
#            is read or written.
# Exit 0, or 2 for a bad argument or a results file it cannot write; it
# never fails because a target is missed.
use strict;
use warnings;
use JSON::PP;
use POSIX qw(strftime);

my $results;
if (@ARGV && $ARGV[0] eq '--results') {
    shift @ARGV;
    $results = shift @ARGV;
    defined $results or die "usage: scripts/bench_summary.pl [--results FILE] [OUTPUT...]\n";
}

my $num = qr/-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/;
my (%now, @order);
while (my $line = <>) {
    next unless $line =~ /^target ([A-Za-z0-9_.-]+) ($num|-) (<=|>=|<|>) ($num)(?: +(.*?))?\s*$/;
    push @order, $1 unless exists $now{$1};
    # kept as printed (1.10 stays 1.10 in the table); numbers in the file
    $now{$1} = { value => $2 eq '-' ? undef : $2, op => $3, goal => $4, unit => $5 // '' };
}

my $prev = {};
if (defined $results && -e $results) {
    local $/;
    if (open my $fh, '<', $results) {
        my $text = <$fh>;
        my $doc = eval { decode_json($text) };
        if (ref $doc eq 'HASH' && ref $doc->{targets} eq 'HASH') {
            $prev = $doc->{targets};
        } else {
            print STDERR "bench_summary: $results is not a results file; previous values left out\n";
        }
    }
}

sub met {
    my ($t) = @_;
    return 'n/a' unless defined $t->{value};
    my ($v, $g, $op) = ($t->{value}, $t->{goal}, $t->{op});
    my $ok = $op eq '<' ? $v < $g : $op eq '<=' ? $v <= $g : $op eq '>' ? $v > $g : $v >= $g;
    return $ok ? 'met' : 'NOT met';
}

sub shown { defined $_[0] ? $_[0] : '-' }

my @rows = map {
    my $t = $now{$_};
    my $p = $prev->{$_};
    [ $_, shown($t->{value}), "$t->{op} " . shown($t->{goal}) . ($t->{unit} ne '' ? " $t->{unit}" : ''),
      met($t), $p && defined $p->{value} ? shown($p->{value}) : '-' ]
} @order;
my @head = ('target', 'value', 'goal', 'met', 'previous');
my @w = map { length $head[$_] } 0 .. $#head;
for my $r (@rows) {
    $w[$_] = length $r->[$_] > $w[$_] ? length $r->[$_] : $w[$_] for 0 .. $#head;
}
my $fmt = join('  ', "%-$w[0]s", "%$w[1]s", "%-$w[2]s", "%-$w[3]s", "%$w[4]s") . "\n";
printf $fmt, @head;
printf $fmt, @$_ for @rows;
printf "%d targets, %d met, %d not met, %d not measured\n", scalar @rows,
    scalar(grep { $_->[3] eq 'met' } @rows), scalar(grep { $_->[3] eq 'NOT met' } @rows),
    scalar(grep { $_->[3] eq 'n/a' } @rows);
print "no previous results ($results)\n" if defined $results && !%$prev;

exit 0 unless defined $results;
my $when = strftime('%Y-%m-%dT%H:%M:%SZ', gmtime);
my %out = %$prev;
for my $name (@order) {
    my $t = $now{$name};
    $out{$name} = { %$t, value => defined $t->{value} ? $t->{value} + 0 : undef, goal => $t->{goal} + 0,
                    met => met($t), run => $when }
        if defined $t->{value} || !$out{$name};
}
my $tmp = "$results.tmp";
open my $fh, '>', $tmp or do { print STDERR "bench_summary: $tmp: $!\n"; exit 2 };
print $fh JSON::PP->new->canonical->pretty->encode({ written => $when, targets => \%out });
close $fh or do { print STDERR "bench_summary: $tmp: $!\n"; exit 2 };
rename $tmp, $results or do { print STDERR "bench_summary: $results: $!\n"; exit 2 };
exit 0;
