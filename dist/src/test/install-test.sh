#!/usr/bin/env bash
# The distribution as an operator gets it: unpack the tarball, run bin/walkit-install into a prefix,
# then use the installed tools, man pages and completion. Run by 'mvn verify' (dist, integration-test).
#   install-test.sh TARBALL
set -euo pipefail
tarball=$1
repo=$(cd "$(dirname "$0")/../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "install-test: FAIL: $*" >&2; exit 1; }

tar -xzf "$tarball" -C "$work"
dist=$(echo "$work"/walkit-*)
[ -d "$dist/lib" ] || fail "no lib/ in the tarball"
for f in bin/walkit-install share/man/man1/walverify.1 share/completion/walmigrate.bash docs/format.md; do
  [ -e "$dist/$f" ] || fail "the tarball lacks $f"
done
# The launcher puts a tool's jar on the class path and its manifest names the rest (Class-Path): each jar
# named must be in lib/ (the JVM skips a missing one without a word, and the tool fails when it needs it).
mkdir "$work/manifests"
for t in walverify waldoctor walrecover walmigrate; do
  jar=$(echo "$dist/lib/$t"-*.jar)
  (cd "$work/manifests" && rm -rf META-INF && jar -xf "$jar" META-INF/MANIFEST.MF)
  # (Manifest lines are cut at 72 bytes; a line that starts with a space goes on the one before.)
  named=$(tr -d '\r' < "$work/manifests/META-INF/MANIFEST.MF" \
    | awk '/^Class-Path: /{cp=substr($0,13); on=1; next} on && /^ /{cp=cp substr($0,2); next} {on=0} END{print cp}')
  [ -n "$named" ] || fail "$jar has no Class-Path in its manifest"
  for j in $named; do [ -f "$dist/lib/$j" ] || fail "$t's manifest names $j, which is not in lib/"; done
done
out=$(XDG_CACHE_HOME="$work/user-cache" "$dist/bin/walkit-install" --prefix "$work/prefix")
[ ! -e "$work/user-cache/walkit/index" ] || fail "walkit-install's training runs left saved indexes in the user's cache: $(ls "$work/user-cache/walkit/index")"
echo "$out" | grep -q "installed walmigrate" || fail "walkit-install said: $out"

# The tools run through the installed symlinks, from another directory.
cd "$work"
for t in walverify waldoctor walrecover walmigrate; do
  v=$("$work/prefix/bin/$t" --version)
  case "$v" in "$t "*"(walkit, WAL format v2; reads v1)") ;; *) fail "$t --version printed: $v" ;; esac
  "$work/prefix/bin/$t" --help | grep -q "^Exit codes:" || fail "$t --help has no exit-code list"
done
# A JAVA_HOME without a java is named as the cause (exit 70), not "no java found".
set +e; JAVA_HOME="$work/nojava" "$work/prefix/bin/walverify" --version 2>"$work/err"; code=$?; set -e
[ "$code" = 70 ] && grep -q "JAVA_HOME is $work/nojava, which has no bin/java" "$work/err" || fail "bad JAVA_HOME: exit $code, $(cat "$work/err")"
# A real run: a torn tail is exit 1 (the help was prebuilt; this loads the whole tool).
printf 'not a wal at all, clearly' > "$work/junk"
set +e; "$work/prefix/bin/walverify" "$work/junk" 2>"$work/err"; code=$?; set -e
[ "$code" = 4 ] || fail "walverify on junk exited $code, not 4: $(cat "$work/err")"
[ "$(wc -l < "$work/err")" = 1 ] || fail "walverify on junk: not one line on stderr: $(cat "$work/err")"

# Arguments are read as UTF-8 whatever the locale: a key typed under LC_ALL=C (containers, cron jobs) is found.
key="/registry/configmaps/default/café-ünïcode"
env -u LANG -u LC_CTYPE LC_ALL=C "$work/prefix/bin/waldoctor" get "$repo/testdata/fixtures/unicode/wal" "$key" > "$work/out" 2>&1 \
  || fail "under LC_ALL=C, waldoctor get of a key that is not ASCII: $(cat "$work/out")"
grep -qx "key: $key" "$work/out" || fail "under LC_ALL=C the key came back as: $(head -1 "$work/out")"

# Output that cannot be written (a full disk) is not a silent exit 0: exit 4 and one line on stderr.
small="$repo/testdata/fixtures/vectors/small/wal"
"$work/prefix/bin/walverify" -q "$small" || fail "walverify on the small vector is not healthy"
set +e; "$work/prefix/bin/walverify" --json "$small" > /dev/full 2>"$work/err"; code=$?; set -e
[ "$code" = 4 ] && grep -q "^walverify: standard output (/dev/full) could not be written: No space left on device" "$work/err" \
  || fail "walverify --json > /dev/full: exit $code, $(cat "$work/err")"

# No flags for a large input any more (issue 17's audit: JIT directives and a large young generation no longer
# paid): none is asked for, and standard output stays the tool's alone (here nothing at all: the sparse file is
# not a WAL, which is said on stderr). Transparent huge pages are asked for where the kernel gives them on
# request ([madvise]), and only there (under [never] the JVM would warn on standard output).
flag() { JAVA_OPTS=-XX:+PrintFlagsFinal "$work/prefix/bin/walverify" -q "$2" 2>/dev/null | awk -v f="$1" '$2 == f {print $4}'; }
truncate -s 65M "$work/big.wal"
thp=false
case "$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)" in *"[madvise]"*) thp=true ;; esac
[ "$(flag UseTransparentHugePages "$work/big.wal")" = "$thp" ] || fail "walverify asks for huge pages: $(flag UseTransparentHugePages "$work/big.wal"), the kernel's mode: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)"
[ "$(JAVA_OPTS=-XX:+PrintFlagsFinal "$work/prefix/bin/walverify" --version 2>/dev/null | awk '$2 == "UseTransparentHugePages" {print $4}')" = false ] \
  || fail "walverify --version (a short-lived JVM) asks for huge pages"
[ "$(flag NewSize "$work/big.wal")" != 1073741824 ] || fail "walverify on a 65 MiB input sets a 1 GiB young generation"
[ "$(flag UseParallelGC "$work/big.wal")" = true ] || fail "walverify does not run with the parallel collector"
set +e; "$work/prefix/bin/walverify" --json "$work/big.wal" > "$work/out" 2>/dev/null; set -e
[ ! -s "$work/out" ] || fail "walverify --json on a 65 MiB input wrote what is not its own: $(head -c 200 "$work/out")"

# walkit-install made class-data sharing archives for the distribution where it is: the tool's classes
# come from its archive. After a jar changes, the archive no longer matches: the JVM says nothing on
# standard output (a --json document stays the tool's alone) and loads the classes from the jars.
echo "$out" | grep -q "class-data sharing archives in $dist/cds: walverify waldoctor waldoctor-serve walrecover" \
  || fail "walkit-install made no class-data sharing archives: $out"
# serve has an archive of its own (gRPC and Netty); the other commands keep waldoctor's.
WALKIT_SHOW_JAVA=1 "$work/prefix/bin/waldoctor" serve "$small" | grep -q "SharedArchiveFile=[^ ]*/cds/waldoctor-serve.jsa" \
  || fail "waldoctor serve does not use its own archive: $(WALKIT_SHOW_JAVA=1 "$work/prefix/bin/waldoctor" serve "$small")"
WALKIT_SHOW_JAVA=1 "$work/prefix/bin/waldoctor" diagnose "$small" | grep -q "SharedArchiveFile=[^ ]*/cds/waldoctor.jsa" \
  || fail "waldoctor diagnose does not use waldoctor's archive"
from_archive() { JAVA_OPTS=-Xlog:class+load=info:file="$work/classes" "$work/prefix/bin/walverify" -q "$small" && grep -c "dev.walkit.format.WalReader source: shared objects file (top)" "$work/classes"; }
[ "$(from_archive)" = 1 ] || fail "walverify does not load its classes from its class-data sharing archive"
# The archive was trained on the other stores too (the sample as a kine db and an etcd db): SQLite's driver and the
# bbolt reader come from it. Nothing of those training runs is left in the user's cache.
"$work/prefix/bin/walrecover" --out "$work/kine" --out-format kine "$small" >/dev/null 2>&1 || fail "walrecover --out-format kine of the small vector"
JAVA_OPTS=-Xlog:class+load=info:file="$work/classes" "$work/prefix/bin/walverify" -q --level semantic "$work/kine/state.db" \
  || fail "walverify of a kine db recovered from the small vector"
grep -q "org.sqlite.core.NativeDB source: shared objects file (top)" "$work/classes" \
  || fail "walverify of a kine db does not load SQLite's driver from its archive"
# A kine db is read with the C1 compiler only; a WAL and an etcd db keep C2 (bin/_launch says why).
[ "$(flag TieredStopAtLevel "$work/kine/state.db")" = 1 ] || fail "walverify of a kine db runs with C2: $(flag TieredStopAtLevel "$work/kine/state.db")"
[ "$(flag TieredStopAtLevel "$work/kine")" = 1 ] || fail "walverify of a kine db's directory runs with C2"
[ "$(flag TieredStopAtLevel "$small")" = 4 ] || fail "walverify of a WAL runs without C2"
[ "$(flag TieredStopAtLevel "$repo/testdata/fixtures/etcd/snapshot.db")" = 4 ] || fail "walverify of an etcd db runs without C2"
JAVA_OPTS=-Xlog:class+load=info:file="$work/classes" "$work/prefix/bin/walverify" -q "$repo/testdata/fixtures/etcd/snapshot.db" \
  || fail "walverify of the etcd snapshot fixture"
grep -q "dev.walkit.format.bbolt.BoltFile source: shared objects file (top)" "$work/classes" \
  || fail "walverify of an etcd db does not load the bbolt reader from its archive"
touch "$dist"/lib/shared-format-*.jar
[ "$(from_archive)" = 0 ] || fail "walverify loads classes from an archive its jars no longer match"
"$work/prefix/bin/walverify" --json "$small" > "$work/out" 2>"$work/err" || fail "walverify --json after a jar changed: $(cat "$work/err")"
[ "$(head -c 1 "$work/out")" = "{" ] && [ ! -s "$work/err" ] || fail "walverify --json after a jar changed printed: $(head -c 300 "$work/out") / $(cat "$work/err")"

# walmigrate loads SQLite from lib/native, not by extracting it into a temp dir (here one that cannot exist):
# SQLite itself answers that an empty file has no kine table.
: > "$work/empty.db"
set +e; JAVA_OPTS="-Dorg.sqlite.tmpdir=$work/none/such" "$work/prefix/bin/walmigrate" kine --sqlite "$work/empty.db" --dry-run 2>"$work/err"; code=$?; set -e
[ "$code" = 4 ] && grep -q "no such table: kine" "$work/err" || fail "walmigrate on an empty db (exit $code): $(cat "$work/err")"

# Without lib/native, and with nowhere to extract the library to, SQLite cannot start: one line that
# says so, exit 5 (not exit 4, which would blame the database).
mv "$dist/lib/native" "$work/native.away"
set +e; JAVA_OPTS="-Dorg.sqlite.tmpdir=$work/none/such" "$work/prefix/bin/walmigrate" kine --sqlite "$work/empty.db" --dry-run 2>"$work/err"; code=$?; set -e
mv "$work/native.away" "$dist/lib/native"
[ "$code" = 5 ] && grep -q "cannot start SQLite" "$work/err" && [ "$(wc -l < "$work/err")" = 1 ] \
  || fail "walmigrate without a loadable SQLite (exit $code): $(cat "$work/err")"

# Man pages render without warnings and name the options.
for t in walverify waldoctor walrecover walmigrate; do
  page=$(MANWIDTH=100 man --warnings -l "$work/prefix/share/man/man1/$t.1" 2>"$work/manerr")
  [ ! -s "$work/manerr" ] || fail "man $t warns: $(cat "$work/manerr")"
  echo "$page" | grep -q "^NAME" || fail "man $t has no NAME section"
  echo "$page" | grep -q "EXIT STATUS" || fail "man $t has no EXIT STATUS section"
done
MANWIDTH=100 man -l "$work/prefix/share/man/man1/walrecover.1" | grep -q -- "--to-revision=R" || fail "man walrecover lacks --to-revision"

# Bash completion completes options and subcommands.
complete_line() {  # complete_line TOOL WORD... : what Tab offers for the last of the words (the first is the tool)
  bash -c 'source "$1"; compopt() { :; }; t=$2; shift 2; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE="$*";
           COMP_POINT=${#COMP_LINE}; _complete_"$t"; printf "%s\n" "${COMPREPLY[@]}"' _ "$work/prefix/share/bash-completion/completions/$1" "$@"
}
complete_line walverify walverify --le | grep -qx -- "--level" || fail "walverify --le<Tab> does not offer --level"
complete_line walmigrate walmigrate ve | grep -qx "verify" || fail "walmigrate ve<Tab> does not offer verify"
# zsh reads the same scripts through bashcompinit (which they turn on): the tools' options and
# subcommands are offered (zsh itself narrows them to the typed prefix). scripts/test installs zsh.
if command -v zsh >/dev/null 2>&1; then
  zsh_offers() {  # zsh_offers TOOL WORD... : what the completion function offers, under zsh
    zsh -c 'source "$1"; compopt() { :; }; setopt ksharrays; t=$2; shift 2; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1));
            COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; [ -n "${_comps[$t]}" ] || exit 3; _complete_"$t"; print -l -- "${COMPREPLY[@]}"' \
      _ "$work/prefix/share/walkit/completion/$1.bash" "$@"
  }
  zsh_offers walverify walverify --le | grep -qx -- "--level" || fail "zsh: walverify --le<Tab> does not offer --level"
  zsh_offers walmigrate walmigrate ve | grep -qx "verify" || fail "zsh: walmigrate ve<Tab> does not offer verify"
else
  echo "install-test: zsh not installed, its completion not checked (scripts/test installs it)"
fi
echo "install-test: ok ($dist)"
