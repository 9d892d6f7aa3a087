package criopin_test

// The differential test: the library (this build's backend: through cgo,
// or compiled to WebAssembly) against the tests' reference
// (criopin.CompileReference: CRI-O's loop of Go regexps and the other
// runtimes' rules in Go, rules_test.go), on generated lists and names under
// every named rule set and every combination of flags: the same answers
// from every entry point, the same errors (kind, index, pattern), and
// Validate agreeing with Compile (checkList).

import (
	"flag"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/crio-pin/crio-pin/go/criopin"
)

var diffLists = flag.Int("difflists", 150, "TestDifferential: lists per flag combination")

// TestDifferential: every flag combination (the named sets among them:
// Crio, Containerd, ContainerdNormalized, CriDockerd, the conflicting
// Literal|CriDockerdSyntax), with the named sets tried four times as
// often. For more: go test -run TestDifferential -args -difflists 1000 -seed 7
func TestDifferential(t *testing.T) {
	g := newRefGenerator(t, *genSeed)
	named := map[criopin.Flag]bool{criopin.Crio: true, criopin.Containerd: true,
		criopin.ContainerdNormalized: true, criopin.CriDockerd: true}
	total, pinned, rejected := 0, 0, 0
	for f := criopin.Flag(0); f < 64; f++ {
		lists := *diffLists
		if named[f] {
			lists *= 4
		}
		cases := 0
		for range lists {
			patterns, names := g.list()
			n, p := checkList(t, patterns, f, names)
			if n == 0 {
				rejected++
			}
			cases += n
			pinned += p
		}
		if t.Failed() {
			t.Fatalf("flags %v: the backends differ (above)", f)
		}
		if cases == 0 && f&criopin.Literal != 0 && f&criopin.CriDockerdSyntax == 0 {
			t.Errorf("flags %v: no list compiled: the generator tests nothing here", f)
		}
		total += cases
	}
	t.Logf("%d (list, name) cases under 64 flag combinations, %d of them pinned; %d lists rejected by both",
		total, pinned, rejected)
}

// TestBytesUnderByteRuntimes: containerd and cri-dockerd compare Go
// strings, so under their rule sets (case-sensitive) an invalid byte of a
// name is no character: pattern "a\uFFFD" does not pin name "a\xff".
// Under CRI-O's rules it does, as Go's regexp reads the byte as U+FFFD,
// and so it does under their syntaxes with case folding, which reads
// names as (?i) does. Both backends agree on each.
func TestBytesUnderByteRuntimes(t *testing.T) {
	names := []string{"a\xff", "a\uFFFD", "quay.io/a\xff:1", "quay.io/a:\xff", "\xffquay.io/a", "A\xff"}
	for _, f := range []criopin.Flag{criopin.Containerd, criopin.CriDockerd, criopin.Literal,
		criopin.CriDockerdSyntax, criopin.Crio, criopin.CaseSensitive} {
		checkList(t, []string{"a\uFFFD", "quay.io/a\uFFFD:1", "quay.io/a", "quay.io/a:\uFFFD"}, f, names)
		checkList(t, []string{"\uFFFD*", "quay.io/a\uFFFD*", "A\uFFFD"}, f, names)
	}
	for _, c := range []struct {
		flags criopin.Flag
		want  bool
	}{{criopin.Crio, true}, {criopin.CaseSensitive, true}, {criopin.Containerd, false}, {criopin.CriDockerd, false},
		{criopin.Literal, true}, {criopin.CriDockerdSyntax, true}} {
		if got := criopin.MustCompile([]string{"a\uFFFD"}, c.flags).Match("a\xff"); got != c.want {
			t.Errorf("%v: pattern a\\uFFFD pins name a\\xff: %v, want %v", c.flags, got, c.want)
		}
	}
}

// TestNormalizeAsDistribution: Normalize reads references exactly as
// distribution/reference v0.6.0 does, refusals included, on the grammar's
// corners: hosts (IPv6 literals, ports, upper case, underscores), paths,
// tags and digests.
func TestNormalizeAsDistribution(t *testing.T) {
	hex := strings.Repeat("0123456789abcdef", 4)
	refs := []string{
		"nginx", "NGINX", "Nginx/x", "docker.io/nginx", "index.docker.io/x/y:1", "Docker.io/nginx",
		"localhost", "localhost:5000", "localhost:5000/a", "localhost/a:1", "foo_bar.com/x", "foo_bar.com:5000/x",
		"[::1]:5000/a", "[::1]/a", "[::1]x5000/a", "[::1]:/a", "[::]:5000/a", "[fe80::1%eth0]:5000/a", "[]:5000/a",
		"[::1]:5000", "a.b-c.d:0/x", "-a.com/x", "a-.com/x", "a..com/x", "a.com:/x", "a.com:5x/x",
		"a/b__c", "a/b___c", "a/b--c", "a/b.-c", "a/b_", "a//b", "a/b/", "/a", "a:b:c", "a:", "a:-x",
		"a:" + strings.Repeat("t", 128), "a:" + strings.Repeat("t", 129), "x/" + strings.Repeat("a", 253), "x/" + strings.Repeat("a", 254),
		"a@sha256:" + hex, "a:1@sha256:" + hex, "a@sha256:" + strings.ToUpper(hex), "a@sha256:" + hex[:63],
		"a@sha384:" + hex + hex[:32], "a@sha512:" + hex + hex, "a@md5:" + hex[:32], "a@sha256" + hex, "a@" + hex,
		hex, "sha256:" + hex, "a@sha256:" + hex + "@x", " nginx", "nginx ", "ng inx", "", "é/x", "a/\xff",
	}
	var names []string
	for _, r := range refs {
		names = append(names, r, strings.ToUpper(r), r+":1")
	}
	for _, f := range []criopin.Flag{criopin.ContainerdNormalized, criopin.Normalize, criopin.Normalize | criopin.CriDockerd} {
		for _, r := range refs {
			checkList(t, []string{r}, f, names)
		}
	}
	// Random strings of the grammar's pieces: each a pattern (the same
	// refusal) and a name (the same normalised form, or none).
	rng := rand.New(rand.NewPCG(*genSeed, 0x7e5))
	pieces := []string{"a", "b", "z", "0", "9", "a", "b", "A", ".", "_", "__", "-", "--", ":", "/", "/", "@", "[", "]",
		"::1", ":5000", "5000", "localhost", "docker.io", "index.docker.io", "library", "sha256:" + hex, "sha512:" + hex + hex}
	refused := 0
	for range 20_000 {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.String()
		if n, _ := checkList(t, []string{text}, criopin.ContainerdNormalized, []string{text, "docker.io/library/" + text}); n == 0 {
			refused++
		}
		if t.Failed() {
			return
		}
	}
	t.Logf("20,000 random strings of the grammar's pieces, %d of them refused as references by both", refused)
}

// refGenerator makes lists and names of image references and the strings
// around them: hosts, paths, tags and digests, their corners, and the
// spice of the CRI-O generator (fold orbits, invalid UTF-8, stars, spaces).
type refGenerator struct{ *generator }

func newRefGenerator(tb testing.TB, seed uint64) refGenerator {
	return refGenerator{&generator{rng: rand.New(rand.NewPCG(seed, seed^0x51ed)), corpus: readLines(tb, "image-names.txt")}}
}

var (
	refHosts = []string{"", "", "", "docker.io/", "index.docker.io/", "quay.io/", "registry.k8s.io/", "Quay.io/",
		"localhost/", "localhost:5000/", "[::1]:5000/", "foo_bar.com/", "a-b.example:443/", "Docker.io/"}
	refPaths = []string{"nginx", "library/nginx", "pause", "openshift/origin", "a/b/c", "x__y", "x-y", "Nginx",
		"etcd", "k8s/pause", "<none>", "a.b", "_x", "sha256"}
	refSuffixes = []string{"", "", ":latest", ":1.27", ":v1", ":3.10", ":<none>", ":", ":-x", ":A",
		"@sha256:" + strings.Repeat("ab", 32), ":1@sha256:" + strings.Repeat("cd", 32), "@sha256:" + strings.Repeat("AB", 32),
		"@sha512:" + strings.Repeat("ef", 64), "@md5:" + strings.Repeat("00", 16)}
)

// reference is an image reference, often not quite one.
func (g refGenerator) reference() string {
	r := g.pick(refHosts) + g.pick(refPaths) + g.pick(refSuffixes)
	switch g.rng.IntN(10) {
	case 0:
		return g.recase(r)
	case 1:
		return g.splice(r)
	case 2:
		return g.pick(g.corpus)
	case 3:
		return "sha256:" + strings.Repeat("0f", 32)
	default:
		return r
	}
}

// name is a stored image name.
func (g refGenerator) name() string {
	switch g.rng.IntN(8) {
	case 0:
		return g.generator.name()
	case 1:
		return g.reference() + g.pick([]string{"\xff", "\uFFFD", "\u212A", " "})
	default:
		return g.reference()
	}
}

// pattern is one configured value, often aimed at one of names.
func (g refGenerator) pattern(names []string) string {
	base := g.reference()
	if g.rng.IntN(2) == 0 {
		base = g.pick(names)
	}
	switch g.rng.IntN(16) {
	case 0, 1, 2, 3, 4:
		return strings.ToValidUTF8(base, "\uFFFD")
	case 5:
		return criopin.RepositoryOf(base) // a bare repository
	case 6, 7:
		return base[:g.rng.IntN(len(base)+1)] + "*"
	case 8:
		return "*" + g.substring(base) + "*"
	case 9:
		return g.pick([]string{" ", "  ", "\t"}) + base + g.pick([]string{"", " "})
	case 10:
		return g.pick([]string{"", " ", "*", "**", "x**", "*pause*", "*pause", "a*b", "<none>", "quay.io/*", "*\uFFFD*"})
	case 11:
		return g.recase(base)
	case 12:
		return strings.ToValidUTF8(g.splice(base), "\uFFFD")
	default:
		return base
	}
}

func (g refGenerator) list() (patterns, names []string) {
	names = make([]string, 16)
	for i := range names {
		names[i] = g.name()
	}
	patterns = make([]string, 1+g.rng.IntN(8))
	for i := range patterns {
		patterns[i] = g.pattern(names)
	}
	// A pattern that is not UTF-8 rejects the list: keep most lists valid.
	for i, p := range patterns {
		if g.rng.IntN(8) != 0 {
			patterns[i] = strings.ToValidUTF8(p, "\uFFFD")
		}
	}
	return patterns, names
}
