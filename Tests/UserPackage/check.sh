#!/usr/bin/env bash
# Builds README's library example as a new package that depends on this repository by URL on
# its `main` branch, exactly as README's Package.swift says, and runs it; then checks that the
# `.package(path:)` form README gives for a clone resolves too.
#
#   Tests/UserPackage/check.sh        (CI runs it; about 2-3 minutes on 2 cores)
#
# The package and its main.swift are the two Swift blocks under "## Library" in README.md, as
# they stand; only the dependency URL is changed to a bare clone of this repository whose `main`
# branch is the commit under test. No tag is created: a user's clone has none either. With ../shared present the program also runs,
# in a scratch folder where the file names it uses point at shared images and models; it must
# find the embedded models through DetectorCore's resource bundle (a face in the astronaut
# portrait), detect the cats of the cats-and-dogs photo and label with the AutoML flowers model.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
shared="$root/../shared"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The two Swift blocks of README's "## Library" section: Package.swift, then main.swift.
python3 - "$root/README.md" "$work" <<'PY'
import re, sys
readme, work = sys.argv[1], sys.argv[2]
text = open(readme).read()
section = text[text.index('\n## Library\n'):]
blocks = re.findall(r'```swift\n(.*?)```', section, re.S)[:2]
if len(blocks) < 2 or 'PackageDescription' not in blocks[0] or 'import DetectorCore' not in blocks[1]:
    sys.exit('README.md: the Library section must start with a Package.swift block and a main.swift block')
open(f'{work}/Package.swift.readme', 'w').write(blocks[0])
open(f'{work}/main.swift', 'w').write(blocks[1])
m = re.search(r'\.package\(url: "([^"]+)", branch: "([^"]+)"\)', blocks[0])
if not m:
    sys.exit('README.md: the Package.swift block must depend on the package by url and branch')
open(f'{work}/branch', 'w').write(m.group(2))
open(f'{work}/url', 'w').write(m.group(1))
path = re.search(r'`\.package\(path: "([^"]+)"\)`', section)
if not path:
    sys.exit("README.md: the Library section must give the .package(path:) form for a clone")
open(f'{work}/pathform', 'w').write(path.group(1))
PY
branch=$(cat "$work/branch")
git clone -q --bare "$root" "$work/repos/objdetect.git"
# The branch README names points at the commit under test (HEAD of this checkout).
git -C "$work/repos/objdetect.git" update-ref "refs/heads/$branch" "$(git -C "$root" rev-parse HEAD)"
if [ -n "$(git -C "$work/repos/objdetect.git" tag)" ]; then echo "check.sh: the clone has tags; README must work without" >&2; fi
mkdir -p "$work/App/Sources/App"
python3 - "$work" <<'PY'
import sys
work = sys.argv[1]
text = open(f'{work}/Package.swift.readme').read()
url = open(f'{work}/url').read()
open(f'{work}/App/Package.swift', 'w').write(text.replace(url, f'file://{work}/repos/objdetect.git'))
PY
mv "$work/main.swift" "$work/App/Sources/App/main.swift"
echo "README's example package, depending on objdetect's $branch branch (HEAD of $root):"
(cd "$work/App" && swift build -c release 2>&1 | tail -3)
app="$work/App/.build/release/App"
# The .package(path:) form: the same Package.swift with the url line replaced resolves against a
# clone placed where README's path points (relative to the package).
mkdir -p "$work/PathApp/Sources/App"
cp "$work/App/Sources/App/main.swift" "$work/PathApp/Sources/App/"
pathform=$(cat "$work/pathform")
python3 - "$work" "$pathform" <<'PY'
import re, sys
work, path = sys.argv[1], sys.argv[2]
text = open(f'{work}/Package.swift.readme').read()
text = re.sub(r'\.package\(url: "[^"]+", branch: "[^"]+"\)', f'.package(path: "{path}")', text)
open(f'{work}/PathApp/Package.swift', 'w').write(text)
PY
clone_dir=$(cd "$work/PathApp" && python3 -c "import os,sys; print(os.path.normpath(os.path.join(os.getcwd(), sys.argv[1])))" "$pathform")
git clone -q "$work/repos/objdetect.git" "$clone_dir"
(cd "$work/PathApp" && swift package resolve >/dev/null && swift package show-dependencies | grep -q objdetect) \
  || { echo "check.sh: README's .package(path:) form did not resolve" >&2; exit 1; }
echo "README's .package(path: \"$pathform\") form resolves"
if [ ! -d "$shared/models" ]; then
  echo "built; not run (no ../shared)"
  exit 0
fi
run="$work/run"
mkdir -p "$run"
ln -s "$shared/images/astronaut.png" "$run/portrait.png"
ln -s "$shared/images/png/cats_and_dogs.png" "$run/frame1.png"
ln -s "$shared/models/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite" "$run/ssd_mobilenet.tflite"
ln -s "$shared/models/automl_flowers" "$run/flowers"
output=$(cd "$run" && "$app")
echo "$output" | sed 's/^/  /'
echo "$output" | head -1 | grep -q '^(x: ' || { echo "check.sh: the embedded face model found no face in astronaut.png" >&2; exit 1; }
echo "$output" | grep -q ' cat ' || { echo "check.sh: the example found no cat in cats_and_dogs.png" >&2; exit 1; }
echo "$output" | grep -qE '^(daisy|dandelion|roses|sunflowers|tulips) ' || { echo "check.sh: the example printed no flower labels" >&2; exit 1; }
echo "README's example package built and ran"
