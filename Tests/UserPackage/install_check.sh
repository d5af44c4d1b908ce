#!/usr/bin/env bash
# Runs README's install recipe (the `sudo cp` line under "## Install") with a temporary prefix in
# place of /usr/local and without sudo, then runs the installed binary from another folder: it
# must find its embedded models there (the default detector) and detect on a committed photo.
#
#   Tests/UserPackage/install_check.sh      (CI runs it after the tests; needs .build/release/objdetect)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
prefix=$(mktemp -d)
elsewhere=$(mktemp -d)
trap 'rm -rf "$prefix" "$elsewhere"' EXIT
recipe=$(python3 - "$root/README.md" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
section = text[text.index('\n## Install\n'):]
section = section[:section.index('\n## ', 1)]
lines = [l for b in re.findall(r'```sh\n(.*?)```', section, re.S) for l in b.splitlines() if l.startswith('sudo cp ')]
if len(lines) != 1:
    sys.exit("README.md: the Install section must have one 'sudo cp' install line")
print(lines[0].split('#')[0].strip())
PY
)
command=${recipe//sudo /}
command=${command//\/usr\/local/$prefix}
echo "README's install recipe with prefix $prefix: $command"
mkdir -p "$prefix/bin"
if [ ! -x "$root/.build/release/objdetect" ]; then
    # CI builds the tests into .build/tests; README's install builds .build/release first.
    echo "building .build/release/objdetect (README: swift build -c release)"
    (cd "$root" && swift build -c release --product objdetect 2>&1 | tail -1)
fi
(cd "$root" && eval "$command")
[ -d "$prefix/Models" ] && [ ! -L "$prefix/Models" ] || { echo "install_check.sh: $prefix/Models is not a folder" >&2; exit 1; }
cp "$root/Fixtures/astronaut.png" "$elsewhere/"
out=$(cd "$elsewhere" && env -u OBJDETECT_MODELS "$prefix/bin/objdetect" astronaut.png --format text --quiet)
echo "$out" | sed 's/^/  /'
echo "$out" | grep -q '^astronaut.png: ' || { echo "install_check.sh: the installed binary reported nothing" >&2; exit 1; }
echo "$out" | grep -q 'no objects' && { echo "install_check.sh: the installed binary found no objects" >&2; exit 1; }
echo "README's install recipe works from another folder"
