//! The benchmark corpus, shared by the benches: the committed image names
//! and pattern lists of `data/`, and the 10,000- and 100,000-pattern lists,
//! generated here deterministically (same mix, same families) rather than
//! committed as 6 MB of text.
//!
//! - Names: `data/image-names.txt` (500 names a node holds).
//! - Lists of 1, 10, 100 and 1,000 patterns: `data/patterns-N.txt`.
//! - Lists of 10,000 and 100,000: `data/patterns-1000.txt` followed by
//!   generated patterns, in the same mix (half exact, a third globs, a sixth
//!   keywords) and from the same families (OpenShift release payloads by
//!   digest and digest-prefix globs, Red Hat catalogue digests, Docker Hub
//!   tags, corporate registries with and without ports, upper-case tags,
//!   team and project globs, agent/sidecar/scanner keywords). Most of them
//!   are near-misses of the names: same repository, other digest; same
//!   registry and team, other service; a keyword that shares a prefix with
//!   a path segment. A list of 10,000 is the first 10,000 of the list of
//!   100,000, and both start with the list of 1,000, so a longer list pins
//!   every name a shorter one pins.
//!
//! `cargo bench --bench table -- --write-corpus DIR` writes the generated
//! lists out; [`checksum`] fingerprints every list so a table names exactly what
//! it measured.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The list sizes every bench measures.
pub const SIZES: [usize; 6] = [1, 10, 100, 1_000, 10_000, 100_000];

/// A pattern list and the names of the node it is matched against.
pub struct List {
    /// `1` … `100k`, or `openshift`: the bench ids' last part.
    pub label: &'static str,
    pub patterns: Vec<String>,
    pub names: Vec<String>,
}

/// Every list the benches measure: [`SIZES`] against `data/`'s names, then
/// the OpenShift-shaped list against its own node ([`openshift`]).
pub fn lists() -> Vec<List> {
    const LABELS: [&str; 6] = ["1", "10", "100", "1k", "10k", "100k"];
    let names = names();
    let mut lists: Vec<List> = SIZES
        .iter()
        .zip(LABELS)
        .map(|(&size, label)| List { label, patterns: patterns(size), names: names.clone() })
        .collect();
    let (patterns, names) = openshift();
    lists.push(List { label: "openshift", patterns, names });
    lists
}

/// Where `data/` is, from the crate root Cargo runs benches in.
pub fn data_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data")
}

fn read_lines(file: &str) -> Vec<String> {
    let path = data_dir().join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines().filter(|l| !l.is_empty()).map(str::to_owned).collect()
}

/// The 500 image names of `data/image-names.txt`.
pub fn names() -> Vec<String> {
    read_lines("image-names.txt")
}

/// The pattern list of `size` patterns (one of [`SIZES`]).
pub fn patterns(size: usize) -> Vec<String> {
    match size {
        1 | 10 | 100 | 1_000 => read_lines(&format!("patterns-{size}.txt")),
        _ => {
            let mut list = read_lines("patterns-1000.txt");
            list.extend(Generator::new().take(size.saturating_sub(list.len())));
            list.truncate(size);
            list
        }
    }
}

/// A list of `size` patterns nine in ten exact, the rest globs and
/// keywords, from the same families as [`patterns`] (the generator's own
/// exact, glob and keyword draws, in its order): what a list of pinned
/// releases and a few hand-written globs looks like.
pub fn exact_heavy(size: usize) -> Vec<String> {
    let mut g = Generator::new();
    (0..size)
        .map(|i| {
            g.serial += 1;
            match i % 10 {
                0 if i % 20 == 0 => g.glob(),
                0 => g.keyword(),
                _ => g.exact(),
            }
        })
        .collect()
}

/// The names grouped into images, as `match_any` sees them: a repository's
/// tag names paired in order with its digest names (`repo:tag` +
/// `repo@sha256:…`), the rest one name per image. 500 names make 403 images.
pub fn images(names: &[String]) -> Vec<Vec<String>> {
    use std::collections::BTreeMap;
    // repository -> (tag names, digest names), in order of first appearance.
    let mut order: Vec<String> = Vec::new();
    let mut by_repo: BTreeMap<String, (Vec<String>, Vec<String>)> = BTreeMap::new();
    for name in names {
        let repo = repository(name).to_owned();
        let entry = by_repo.entry(repo.clone()).or_insert_with(|| {
            order.push(repo);
            Default::default()
        });
        if name.contains("@sha256:") && !has_tag(name) {
            entry.1.push(name.clone());
        } else {
            entry.0.push(name.clone());
        }
    }
    let mut images = Vec::new();
    for repo in order {
        let (tags, digests) = &by_repo[&repo];
        let pairs = tags.len().min(digests.len());
        for i in 0..pairs {
            images.push(vec![tags[i].clone(), digests[i].clone()]);
        }
        for rest in tags[pairs..].iter().chain(&digests[pairs..]) {
            images.push(vec![rest.clone()]);
        }
    }
    images
}

/// `name` without its tag and digest.
fn repository(name: &str) -> &str {
    let name = name.split('@').next().unwrap_or(name);
    let last_slash = name.rfind('/').map_or(0, |i| i + 1);
    match name[last_slash..].find(':') {
        Some(colon) => &name[..last_slash + colon],
        None => name,
    }
}

fn has_tag(name: &str) -> bool {
    let before_digest = name.split('@').next().unwrap_or(name);
    let last_slash = before_digest.rfind('/').map_or(0, |i| i + 1);
    before_digest[last_slash..].contains(':')
}

/// OpenShift's shape of list (PinnedImageSets): 50,000 digest references
/// (up to 500 per set, 100 sets) over 300 repositories, most of them release
/// payload images of one repository, then CRI-O's pause image and 3 globs;
/// and the names of a node holding 300 of those repositories' images, each
/// by tag and by digest (two in three of the digests pinned). Deterministic.
pub fn openshift() -> (Vec<String>, Vec<String>) {
    const NAMESPACES: &[&str] = &[
        "openshift4",
        "rhel9",
        "ubi9",
        "odf4",
        "rhacm2",
        "multicluster-engine",
        "openshift-logging",
        "rhceph",
        "container-native-virtualization",
        "openshift-gitops-1",
        "rh-sso-7",
        "amq7",
        "jboss-eap-8",
        "ansible-automation-platform-24",
        "advanced-cluster-security",
        "quay",
        "openshift-service-mesh",
        "openshift-serverless-1",
        "rhods",
        "redhat",
    ];
    let mut r = SplitMix64(0x6f70_656e_7368_6966);
    let repos: Vec<String> = std::iter::once(ART_DEV.to_owned())
        .chain((1..300).map(|i| {
            let ns = NAMESPACES[i % NAMESPACES.len()];
            format!("registry.redhat.io/{ns}/component-{i:03}-rhel9-operator")
        }))
        .collect();
    // Two in five digests are release payload images (one repository).
    let repo_of = |r: &mut SplitMix64| {
        if r.below(5) < 2 {
            0
        } else {
            1 + r.below(299) as usize
        }
    };
    let mut patterns: Vec<String> = (0..50_000)
        .map(|_| {
            let repo = repo_of(&mut r);
            format!("{}@sha256:{}", repos[repo], r.hex(64))
        })
        .collect();
    patterns.push("registry.k8s.io/pause:3.10".to_owned());
    patterns.push("registry.ci.openshift.org/ocp/*".to_owned());
    patterns.push("quay.io/openshift-release-dev/ocp-release:4.18*".to_owned());
    patterns.push("localhost/*".to_owned());
    let mut names = Vec::new();
    for i in 0..300 {
        // Two in three images are pinned (by digest); the rest are other
        // digests of the same repositories.
        let digest_ref = if i % 3 < 2 {
            patterns[r.below(50_000) as usize].clone()
        } else {
            format!("{}@sha256:{}", repos[repo_of(&mut r)], r.hex(64))
        };
        let repo = digest_ref.split('@').next().expect("a repository");
        names.push(format!("{repo}:v4.18.{}", r.below(40)));
        names.push(digest_ref);
    }
    (patterns, names)
}

/// A 64-bit FNV-1a fingerprint of a list (lines joined by `\n`), printed
/// beside results so that a table names the exact corpus it measured.
pub fn checksum<S: AsRef<str>>(lines: &[S]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for line in lines {
        for &b in line.as_ref().as_bytes().iter().chain(b"\n") {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    hash
}

/// SplitMix64: a tiny deterministic generator (no dependency, same output
/// on every platform and Rust version).
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }

    fn hex(&mut self, digits: usize) -> String {
        let mut out = String::with_capacity(digits);
        while out.len() < digits {
            out.push_str(&format!("{:016x}", self.next()));
        }
        out.truncate(digits);
        out
    }
}

const ART_DEV: &str = "quay.io/openshift-release-dev/ocp-v4.0-art-dev";
const OCP_RELEASE: &str = "quay.io/openshift-release-dev/ocp-release";
const REDHAT: &[&str] = &[
    "registry.redhat.io/ubi9/ubi",
    "registry.redhat.io/ubi9/ubi-minimal",
    "registry.redhat.io/ubi8/ubi-micro",
    "registry.redhat.io/rhel9/support-tools",
    "registry.redhat.io/openshift4/ose-cli",
    "registry.redhat.io/openshift4/ose-kube-rbac-proxy",
    "registry.redhat.io/rhacm2/multicluster-engine-operator",
    "registry.redhat.io/odf4/odf-operator",
];
const LIBRARY: &[&str] = &[
    "alpine",
    "busybox",
    "centos",
    "debian",
    "eclipse-temurin",
    "fedora",
    "golang",
    "haproxy",
    "httpd",
    "mariadb",
    "memcached",
    "mongo",
    "mysql",
    "nginx",
    "node",
    "openjdk",
    "postgres",
    "python",
    "rabbitmq",
    "redis",
    "registry",
    "traefik",
    "ubuntu",
];
const HUB_ORGS: &[&str] = &[
    "docker.io/bitnami/kafka",
    "docker.io/bitnami/redis",
    "docker.io/bitnami/zookeeper",
    "docker.io/calico/node",
    "docker.io/calico/cni",
    "docker.io/grafana/grafana",
    "docker.io/grafana/loki",
    "docker.io/istio/proxyv2",
    "docker.io/jaegertracing/jaeger-agent",
    "docker.io/prom/prometheus",
    "docker.io/prom/pushgateway",
];
const GHCR: &[&str] = &[
    "ghcr.io/argoproj/argocd",
    "ghcr.io/argoproj/argo-rollouts",
    "ghcr.io/cloudnative-pg/cloudnative-pg",
    "ghcr.io/external-secrets/external-secrets",
    "ghcr.io/fluxcd/helm-controller",
    "ghcr.io/fluxcd/source-controller",
    "ghcr.io/open-telemetry/opentelemetry-collector-releases/opentelemetry-collector-contrib",
];
const GCR: &[&str] = &[
    "gcr.io/distroless",
    "gcr.io/gke-release",
    "gcr.io/google-containers",
    "gcr.io/kaniko-project",
    "gcr.io/ml-pipeline",
    "gcr.io/tekton-releases",
    "gcr.io/k8s-staging-sig-storage",
];
const GCR_IMAGES: &[&str] = &[
    "api-server",
    "base",
    "event-exporter",
    "executor",
    "fluent-bit",
    "frontend",
    "kubectl",
    "static",
    "pipeline/cmd/controller",
];
const SUFFIXES: &[&str] = &["", "-RC2", "-rc1", "-Beta.1"];
const KEYWORDS: &[&str] =
    &["internal-agent", "monitoring-sidecar", "scanner", "Vendor-Tool", "svc", "team", "ocp-v4.0"];

/// Generated patterns, after the first 1,000 of `data/patterns-1000.txt`.
struct Generator {
    rng: SplitMix64,
    serial: u64,
}

impl Generator {
    fn new() -> Generator {
        Generator { rng: SplitMix64(0x6372_696f_2d70_696e), serial: 1000 }
    }

    fn exact(&mut self) -> String {
        let r = &mut self.rng;
        match r.below(20) {
            // Release payloads by digest: share 54 bytes with 185 names.
            0..=8 => format!("{ART_DEV}@sha256:{}", r.hex(64)),
            9 => format!("{OCP_RELEASE}@sha256:{}", r.hex(64)),
            10..=12 => format!("{}@sha256:{}", r.pick(REDHAT), r.hex(64)),
            13 => format!("docker.io/library/{}:{}.{}.{}", r.pick(LIBRARY), r.below(10), r.below(31), r.below(100)),
            14 => format!("{}:v{}.{}.{}", r.pick(HUB_ORGS), r.below(10), r.below(31), r.below(16)),
            15 => format!("{}:v{}.{}.{}{}", r.pick(GHCR), r.below(10), r.below(31), r.below(16), r.pick(SUFFIXES)),
            16 => format!(
                "registry.internal.example.com:5000/team-{}/svc-{}:{}.{}.{}",
                r.below(40),
                r.below(400),
                r.below(10),
                r.below(31),
                r.below(16)
            ),
            17 => format!(
                "registry.corp.example.net/platform/agent-{}:v{}.{}",
                r.below(5000),
                1 + r.below(5),
                r.below(10)
            ),
            18 => format!("{}/{}@sha256:{}", r.pick(GCR), r.pick(GCR_IMAGES), r.hex(64)),
            _ => format!(
                "docker.io/library/{}:{}.{}.{}@sha256:{}",
                r.pick(LIBRARY),
                r.below(10),
                r.below(31),
                r.below(16),
                r.hex(64)
            ),
        }
    }

    fn glob(&mut self) -> String {
        let serial = self.serial;
        let r = &mut self.rng;
        match r.below(10) {
            0..=2 => format!("{ART_DEV}@sha256:{}*", r.hex(8)),
            3..=4 => format!("registry.corp.example.net/team-{serial}/*"),
            5 => format!("gcr.io/project-{serial}/*"),
            6 => format!("docker.io/library/{}:{}.*", r.pick(LIBRARY), 100 + r.below(900)),
            // A port and a team like the names', another service.
            7 => format!("registry.internal.example.com:5000/team-{}/svc-{}*", r.below(40), 1000 + r.below(9000)),
            8 => format!("{}-{serial}/*", r.pick(GHCR)),
            _ => format!("{}/{}-{serial}:*", r.pick(GCR), r.pick(GCR_IMAGES)),
        }
    }

    fn keyword(&mut self) -> String {
        let serial = self.serial;
        let word = self.rng.pick(KEYWORDS);
        format!("*{word}-{serial}*")
    }
}

impl Iterator for Generator {
    type Item = String;

    fn next(&mut self) -> Option<String> {
        self.serial += 1;
        // Half exact, a third globs, a sixth keywords.
        Some(match self.rng.below(6) {
            0..=2 => self.exact(),
            3 | 4 => self.glob(),
            _ => self.keyword(),
        })
    }
}
