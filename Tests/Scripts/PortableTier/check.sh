#!/bin/sh
# The baseline tier's portable primitives (the non-x86 branches of Sources/KernelsBaseline/Tier.swift,
# what arm64 compiles) against its SSE2 ones, on this x86-64 machine: both branches are compiled
# side by side under other names (TierP, TierX) and compare.swift checks every primitive bit for
# bit on random and special inputs (NaN, infinities, ties, partial counts). No arm64 machine is
# needed to see that the NEON build computes the same values. Usage: Tests/Scripts/PortableTier/check.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$root" "$work" <<'PY'
import sys
root, work = sys.argv[1], sys.argv[2]
src = open(f'{root}/Sources/KernelsBaseline/Tier.swift').read()
math = open(f'{root}/Sources/TierKernels/TierMath.swift').read()
i = math.index('    /// `round(clamp(v, lo, hi)) + shift` per lane'); j = math.index('\n    }\n', i) + len('\n    }\n')
quantum = math[i:j]
def variant(name, portable):
    s = src.replace('package ', '').replace('enum Tier {', f'enum {name} {{')
    s = s.replace('typealias MathLanes', f'typealias MathLanes{name}').replace('typealias DepthwiseLanes', f'typealias DepthwiseLanes{name}')
    if portable:
        s = s.replace('#if arch(x86_64)\nimport _Builtin_intrinsics.intel\n#endif', 'import _Builtin_intrinsics.intel')
        s = s.replace('#if arch(x86_64)', '#if false').replace('#if arch(arm64)', '#if true')
    s = s.replace('TierMath.floatStepQuantum(', f'Math{name}.floatStepQuantum(')
    return s + f'\nenum Math{name} {{\n' + quantum.replace('Tier.clamp', f'{name}.clamp') + '}\n'
open(f'{work}/x86.swift', 'w').write(variant('TierX', False))
open(f'{work}/port.swift', 'w').write(variant('TierP', True))
PY
cp "$here/compare.swift" "$work/main.swift"   # top-level code: the main file
swiftc -O -module-name port "$work/x86.swift" "$work/port.swift" "$work/main.swift" -o "$work/compare"
"$work/compare"
