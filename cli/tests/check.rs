//! `crio-pin check`: one exit status and a summary first, on the recorded
//! listings of a live CRI-O (`--images`), on a fake CRI server answering on
//! a temporary Unix socket (the socket path, on every machine), and on a
//! live containerd started by the test as root (skipped, loudly, where it
//! cannot run; `CRIO_PIN_REQUIRE_CONTAINERD=1`, as CI sets it, fails there
//! instead).

use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::util::*;

/// The CRI messages the tool reads, from its own source: the fake server
/// answers in exactly the wire format the client decodes. (A server reads
/// no field of the requests: allowed unread.)
#[path = "../src/cri/messages.rs"]
#[allow(dead_code)]
pub mod messages;

/// The summary's labels, in the order the first lines give them.
const SUMMARY: [&str; 5] = ["check", "runtime", "list", "images", "lint"];

fn recording(name: &str, rest: &[&str]) -> Vec<&'static str> {
    let mut v: Vec<&str> =
        vec!["-c", "crio-listings/crio.conf", "-d", format!("crio-listings/{name}/crio.conf.d").leak()];
    v.extend(rest.iter().map(|s| &*s.to_string().leak()));
    v
}

/// The label of each of the first `n` summary lines (a wrapped line goes
/// on indented).
fn labels(text: &str, n: usize) -> Vec<&str> {
    text.lines().filter(|l| !l.starts_with(' ')).take(n).map(|l| l.split(' ').next().unwrap()).collect()
}

#[test]
fn each_live_crio_recording_checks_all_right() {
    for name in ["A", "E", "F"] {
        let listing = format!("crio-listings/{name}/list.json");
        let args = recording(name, &["check", "--images", &listing]);
        let out = run(&args);
        assert_eq!(code(&out), 0, "{args:?}\n{}{}", stdout(&out), stderr(&out));
        let text = stdout(&out);
        assert_eq!(labels(&text, 5), SUMMARY, "{text}");
        // All right but for the warnings, which the verdict counts.
        let warnings = json(&run(&[&args[..], &["--json"]].concat()))["summary"]["warnings"].as_u64().unwrap();
        let verdict = match warnings {
            0 => "check    all right\n".to_string(),
            n => format!("check    passed, with {n} warning(s) (below); --fail-on-warnings fails on them\n"),
        };
        assert!(text.starts_with(&verdict), "{text}");
        // The pins CRI-O reported, counted from the recording itself.
        let recorded: Value = serde_json::from_slice(&std::fs::read(data().join(&listing)).unwrap()).unwrap();
        let images = recorded["images"].as_array().unwrap();
        let pinned = images.iter().filter(|i| i["pinned"] == true).count();
        let v = json(&run(&[&args[..], &["--json"]].concat()));
        let summary = &v["summary"];
        assert_eq!(summary["images"], images.len(), "{name}: {summary}");
        assert_eq!(summary["pinned"], pinned, "{name}: {summary}");
        assert_eq!((summary["disagreements"].as_u64(), summary["exit_status"].as_u64()), (Some(0), Some(0)));
        assert_eq!(v["images_from"]["listing"], listing.as_str());
        // The detail is each command's own answer on the same files.
        let explained = json(&run(&recording(name, &["explain", "--images", &listing, "--check", "--json"])));
        assert_eq!(v["explain"], explained, "{name}");
        let linted = json(&run(&recording(name, &["lint", "--images", &listing, "--json"])));
        assert_eq!(v["lint"], linted, "{name}");
        assert_eq!(v["config"], json(&run(&recording(name, &["config", "--json"]))), "{name}");
    }
}

#[test]
fn the_sample_node_fails_with_one_status_and_says_why_first() {
    let out = golden("check-node", &node(&["check", "--images", "node/images.json"]), 1);
    let text = stdout(&out);
    assert!(
        text.starts_with("check    FAILED (exit status 1): 2 disagreement(s) with the runtime, 1 undecided image(s)\n"),
        "{text}"
    );
    // Each part's detail follows, under its heading, once.
    for heading in ["== the list in force", "== its traps", "== each image against the runtime"] {
        assert_eq!(text.matches(heading).count(), 1, "{heading}: {text}");
    }
    // The configuration's warnings are said once, with the list.
    assert_eq!(text.matches("warning[ignored-key]: node/crio.conf.d/10-runtime.conf:4").count(), 1, "{text}");
    // Undecided images accepted, the disagreements still fail.
    let v = json(&run(&node(&["check", "--images", "node/images.json", "--allow-undecided", "--json"])));
    assert_eq!(v["summary"]["problems"], serde_json::json!(["2 disagreement(s) with the runtime"]), "{v}");
    assert_eq!(v["summary"]["exit_status"], 1);
}

/// The demo's node (examples/): its running CRI-O still pins by the list
/// of 50-pinned-images, as before 99-local.conf replaced it without a
/// reload; check says so first, and names the cause.
#[test]
fn the_sample_node_runs_the_list_from_before_its_local_drop_in() {
    let examples = data().join("../../../examples");
    let listing = examples.join("data/node-images.json");
    let listing = listing.to_str().unwrap();
    let main = examples.join("crio/crio.conf");
    let main = main.to_str().unwrap();
    let before = tempfile::tempdir().unwrap();
    std::fs::copy(examples.join("crio/crio.conf.d/50-pinned-images"), before.path().join("50-pinned-images")).unwrap();
    let out = run(&["-c", main, "-d", before.path().to_str().unwrap(), "check", "--images", listing]);
    assert_eq!(code(&out), 0, "the listing's flags are the list before 99-local.conf:\n{}", stdout(&out));
    let conf_d = examples.join("crio/crio.conf.d");
    let v = json(&run(&["-c", main, "-d", conf_d.to_str().unwrap(), "check", "--images", listing, "--json"]));
    assert_eq!(v["summary"]["exit_status"], 1, "{}", v["summary"]);
    let causes = codes(&v["explain"]["causes"]);
    assert!(causes.contains("not-reloaded") && causes.contains("overridden-list"), "{causes:?}");
}

#[test]
fn a_lint_error_fails_and_a_refused_list_is_status_2() {
    let dir = tempfile::tempdir().unwrap();
    // A pause image CRI-O rejects on reload, behind --pause-image: a lint
    // error, the list itself is fine.
    write_file(dir.path(), "10-pause.conf", "[crio.image]\npause_image = \"MyOrg/pause:1\"\n");
    let conf_d = dir.path().to_str().unwrap();
    let bad_pause = ["-c", "", "-d", conf_d, "--pause-image", "registry.k8s.io/pause:3.10.1"];
    let listing = "crio-listings/A/list.json";
    let out = run(&[&bad_pause[..], &["check", "--images", listing, "--allow-undecided", "--json"]].concat());
    let v = json(&out);
    assert!(v["summary"]["lint_errors"].as_u64() > Some(0), "{v}");
    assert!(v["summary"]["problems"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p.as_str().unwrap().ends_with("lint error(s)")));
    // A lone star: still shown, whole, and refused.
    let out = run(&["-c", "bad/lone-star.conf", "-d", "none", "check", "--images", "crio-listings/A/list.json"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("check    REFUSED (exit status 2): 1 pattern(s) make a list refused"),
        "{}",
        stdout(&out)
    );
    assert!(stdout(&out).contains("== each image against the runtime"), "{}", stdout(&out));
    assert!(stderr(&out).contains("lone"), "{}", stderr(&out));
    // Names alone have no pinned flags to compare.
    let names = tempfile::tempdir().unwrap();
    let names = write_file(names.path(), "names.txt", "quay.io/a:1\n");
    let out = run(&["check", "--images", &names]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("check compares with the runtime's `pinned` flags"), "{}", stderr(&out));
    // The kubelet is no runtime to ask.
    let out = run(&["--runtime", "kubelet", "check"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("no runtime"), "{}", stderr(&out));
}

/// A CRI server on a temporary Unix socket, answering `Version` and
/// `ListImages` as a runtime would, on a thread of its own for the rest of
/// the test process.
pub struct FakeCri {
    _dir: tempfile::TempDir,
    pub endpoint: String,
}

#[derive(Clone)]
struct Answers {
    version: messages::VersionResponse,
    images: Arc<Vec<messages::Image>>,
    /// From this time on, these images instead (a runtime whose reload
    /// applies after a while).
    later: Option<(Instant, Arc<Vec<messages::Image>>)>,
    /// Answer ListImages with this error instead.
    list_error: Option<tonic::Code>,
    /// What `GET /config` answers (HTTP/1.1 on the same socket, as CRI-O
    /// serves its configuration), if anything.
    config: Option<Arc<String>>,
}

/// One unary answer, whatever the request.
struct Answer<A>(Result<A, tonic::Status>);

impl<Q, A: Send + 'static> tonic::server::UnaryService<Q> for Answer<A> {
    type Response = A;
    type Future = std::future::Ready<Result<tonic::Response<A>, tonic::Status>>;
    fn call(&mut self, _: tonic::Request<Q>) -> Self::Future {
        let answer = std::mem::replace(&mut self.0, Err(tonic::Status::internal("answered")));
        std::future::ready(answer.map(tonic::Response::new))
    }
}

type Body = tonic::body::Body;

impl tower::Service<http::Request<Body>> for Answers {
    type Response = http::Response<Body>;
    type Error = std::convert::Infallible;
    type Future = std::pin::Pin<Box<dyn std::future::Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, _: &mut std::task::Context<'_>) -> std::task::Poll<Result<(), Self::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<Body>) -> Self::Future {
        use tonic::codec::ProstCodec;
        use tonic::server::Grpc;
        let answers = self.clone();
        Box::pin(async move {
            Ok(match request.uri().path() {
                messages::VERSION => {
                    let codec = ProstCodec::<messages::VersionResponse, messages::VersionRequest>::default();
                    Grpc::new(codec).unary(Answer(Ok(answers.version)), request).await
                }
                messages::LIST_IMAGES => {
                    let answer = match answers.list_error {
                        Some(code) => Err(tonic::Status::new(code, "the fake server says no")),
                        None => {
                            let images = match &answers.later {
                                Some((from, later)) if Instant::now() >= *from => later,
                                _ => &answers.images,
                            };
                            Ok(messages::ListImagesResponse { images: images.to_vec() })
                        }
                    };
                    let codec = ProstCodec::<messages::ListImagesResponse, messages::ListImagesRequest>::default();
                    Grpc::new(codec).unary(Answer(answer), request).await
                }
                "/config" if answers.config.is_some() => {
                    let toml = answers.config.as_deref().unwrap().clone();
                    let body = Body::new(http_body_util::Full::new(bytes::Bytes::from(toml)));
                    http::Response::builder().header("content-type", "application/toml").body(body).unwrap()
                }
                _ => tonic::Status::unimplemented("not a method of this server").into_http(),
            })
        })
    }
}

impl FakeCri {
    pub fn start(images: Vec<messages::Image>, list_error: Option<tonic::Code>) -> FakeCri {
        FakeCri::serve(Answers { list_error, ..Answers::listing(images) })
    }

    /// A runtime that lists `images`, and `later` once `after` has passed.
    fn changing(images: Vec<messages::Image>, after: Duration, later: Vec<messages::Image>) -> FakeCri {
        FakeCri::serve(Answers { later: Some((Instant::now() + after, Arc::new(later))), ..Answers::listing(images) })
    }

    /// A CRI-O (by its Version) whose `/config` answers the file
    /// `config` of tests/data/crio-config.
    fn crio(images: Vec<messages::Image>, config: &str) -> FakeCri {
        let toml = std::fs::read_to_string(data().join("crio-config").join(config)).unwrap();
        let answers = Answers::listing(images);
        let version = messages::VersionResponse { runtime_name: "cri-o".into(), ..answers.version.clone() };
        FakeCri::serve(Answers { version, config: Some(Arc::new(toml)), ..answers })
    }

    fn serve(answers: Answers) -> FakeCri {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("cri.sock");
        let (bound, is_bound) = std::sync::mpsc::channel();
        let path = socket.clone();
        std::thread::spawn(move || {
            let tokio = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            tokio.block_on(async move {
                let listener = tokio::net::UnixListener::bind(&path).unwrap();
                bound.send(()).unwrap();
                let incoming = tokio_stream::wrappers::UnixListenerStream::new(listener);
                // HTTP/1.1 too, for /config, as CRI-O's socket takes both.
                let server = tonic::transport::Server::builder().accept_http1(true);
                server.serve_with_incoming(answers, incoming).await.unwrap();
            })
        });
        is_bound.recv_timeout(Duration::from_secs(120)).expect("the fake CRI server listens");
        FakeCri { endpoint: format!("unix://{}", socket.display()), _dir: dir }
    }
}

impl Answers {
    /// A runtime that lists `images`, and says nothing else.
    fn listing(images: Vec<messages::Image>) -> Answers {
        Answers {
            version: messages::VersionResponse {
                version: "0.1.0".into(),
                runtime_name: "fake-cri".into(),
                runtime_version: "1.0.0".into(),
                runtime_api_version: "v1".into(),
            },
            images: Arc::new(images),
            later: None,
            list_error: None,
            config: None,
        }
    }
}

/// A crictl listing's images as the CRI messages a runtime sends.
fn cri_images(listing: &str) -> Vec<messages::Image> {
    let v: Value = serde_json::from_slice(&std::fs::read(data().join(listing)).unwrap()).unwrap();
    let strings = |v: &Value| -> Vec<String> {
        v.as_array().into_iter().flatten().map(|s| s.as_str().unwrap().to_string()).collect()
    };
    v["images"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| messages::Image {
            id: i["id"].as_str().unwrap().into(),
            repo_tags: strings(&i["repoTags"]),
            repo_digests: strings(&i["repoDigests"]),
            pinned: i["pinned"] == true,
        })
        .collect()
}

#[test]
fn images_read_over_cri_are_checked_as_the_same_listing_is() {
    for name in ["A", "F"] {
        let listing = format!("crio-listings/{name}/list.json");
        let cri = FakeCri::start(cri_images(&listing), None);
        let args = recording(name, &["check", "--runtime-endpoint", &cri.endpoint]);
        let out = run(&args);
        assert_eq!(code(&out), 0, "{args:?}\n{}{}", stdout(&out), stderr(&out));
        let text = stdout(&out);
        assert_eq!(labels(&text, 5), SUMMARY, "{text}");
        let from = format!("images read from {}, which answers as fake-cri 1.0.0, CRI v1", cri.endpoint);
        assert!(text.replace("\n         ", " ").contains(&from), "{text}");
        // Everything after the source is what the listing gives.
        let by_socket = json(&run(&[&args[..], &["--json"]].concat()));
        let by_listing = json(&run(&recording(name, &["check", "--images", &listing, "--json"])));
        for part in ["summary", "config", "lint", "explain"] {
            assert_eq!(by_socket[part], by_listing[part], "{name}: {part}");
        }
        let runtime = &by_socket["images_from"]["cri"];
        assert_eq!((runtime["name"].as_str(), runtime["endpoint"].as_str()), (Some("fake-cri"), Some(&*cri.endpoint)));
        // crictl's variable names the endpoint too; the option wins over it.
        let out = run_env(&recording(name, &["check"]), &[("CONTAINER_RUNTIME_ENDPOINT", &cri.endpoint)]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let out = run_env(&args, &[("CONTAINER_RUNTIME_ENDPOINT", "unix:///nonexistent.sock")]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
    }
    // A flag the runtime leaves out (proto3 sends no false) is not pinned,
    // as the kubelet reads it: the pins CRI-O reported are disagreements.
    let cri = FakeCri::start(unflagged("crio-listings/A/list.json"), None);
    let v = json(&run(&recording("A", &["check", "-r", &cri.endpoint, "--json"])));
    assert_eq!(v["summary"]["disagreements"], 7, "{}", v["summary"]);
    assert_eq!(v["summary"]["exit_status"], 1);
}

/// `check` over CRI against a runtime listing 1,000,000 images (the
/// message about 200 MB, under the 256 MiB the tool decodes): its memory
/// bounded by the message (measured: 739 MB for 210 MB, under the bound of
/// four times it), its output by what an operator reads.
#[test]
fn check_over_cri_on_a_million_images_is_bounded_in_memory_and_output() {
    let images: Vec<messages::Image> = (0..1_000_000usize)
        .map(|i| messages::Image {
            id: format!("{:064x}", i as u64 + (1 << 40)),
            repo_tags: vec![format!("registry.example/team-{i}/app:{i}")],
            repo_digests: vec![format!("registry.example/team-{i}/app@sha256:{i:064x}")],
            pinned: i % 3 == 0,
        })
        .collect();
    let message =
        images.iter().map(|i| 2 + i.id.len() + 4 + i.repo_tags[0].len() + i.repo_digests[0].len() + 8).sum::<usize>()
            as u64;
    let cri = FakeCri::start(images, None);
    let args = ["--pinned-images", "registry.example/team-1*", "check", "--runtime-endpoint", &cri.endpoint];
    let (status, text, peak) = crate::large_input::run_measured(&args);
    assert_eq!(status, 1, "{text}");
    assert!(peak < 4 * message, "peak {} MB for a message of about {} MB", peak >> 20, message >> 20);
    assert!(text.lines().count() < 400, "{} lines", text.lines().count());
    assert!(text.contains("images   1000000, 111111 pinned"), "{}", &text[..2000.min(text.len())]);
}

/// Recording A's images with every pinned flag false: a runtime that
/// has not loaded the list yet.
fn unflagged(listing: &str) -> Vec<messages::Image> {
    let mut images = cri_images(listing);
    images.iter_mut().for_each(|i| i.pinned = false);
    images
}

#[test]
fn wait_ends_as_soon_as_the_runtime_agrees() {
    let listing = "crio-listings/A/list.json";
    let cri = FakeCri::changing(unflagged(listing), Duration::from_secs(2), cri_images(listing));
    let start = Instant::now();
    let out = run(&recording("A", &["check", "-r", &cri.endpoint, "--wait", "10s"]));
    let took = start.elapsed();
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    // It waited for the change (a busy machine only makes it later: no
    // upper bound on the clock here; the schedule bounds the readings).
    assert!(took >= Duration::from_secs(2), "took {took:?}");
    let text = stdout(&out);
    assert!(text.starts_with("check    passed, with 1 warning(s) (below)"), "{text}");
    assert!(text.contains("\nwait     the runtime's flags agree after "), "{text}");
    // The progress line said what it waited for, on standard error.
    let said = stderr(&out);
    assert!(said.contains("waiting for the runtime: 7 disagreement(s) after 0.0 s, asking again until 10 s"), "{said}");
    // Already agreeing: one reading, no progress line.
    let cri = FakeCri::start(cri_images(listing), None);
    let v = json(&run(&recording("A", &["check", "-r", &cri.endpoint, "--wait", "10s", "--json"])));
    crate::json_schemas::assert_schema("check", &v);
    let waited = &v["summary"]["waited"];
    assert_eq!((waited["agreed"].as_bool(), waited["readings"].as_u64()), (Some(true), Some(1)), "{waited}");
    assert_eq!(waited["within_seconds"], 10.0);
}

#[test]
fn wait_reports_the_last_reading_when_the_time_runs_out() {
    let listing = "crio-listings/A/list.json";
    let cri = FakeCri::start(unflagged(listing), None);
    let start = Instant::now();
    let out = run(&recording("A", &["check", "-r", &cri.endpoint, "--wait", "2s", "--json"]));
    let took = start.elapsed();
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(took >= Duration::from_secs(2), "took {took:?}");
    let v = json(&out);
    crate::json_schemas::assert_schema("check", &v);
    let summary = &v["summary"];
    assert_eq!(summary["disagreements"], 7, "{summary}");
    assert_eq!(summary["problems"][0], "7 disagreement(s) with the runtime after waiting 2 s", "{summary}");
    let waited = &summary["waited"];
    assert_eq!(waited["agreed"], false, "{waited}");
    // A quarter of the time waited, from 250 ms: 0, 0.25, 0.5, 0.75, 1, 1.25, 1.56, 1.95, 2.
    // (At most 10 whatever the machine; fewer only if readings are slow.)
    let readings = waited["readings"].as_u64().unwrap();
    assert!((2..=10).contains(&readings), "{waited}");
    // No progress line beside JSON; the likely causes are the last reading's.
    assert!(!stderr(&out).contains("waiting for the runtime"), "{}", stderr(&out));
    assert!(codes(&v["explain"]["causes"]).contains("not-reloaded"), "{}", v["explain"]["causes"]);
    // A runtime that cannot be read is no wait: exit status 2 at once.
    let dir = tempfile::tempdir().unwrap();
    let missing = format!("unix://{}/none.sock", dir.path().display());
    let out = run(&["check", "-r", &missing, "--wait", "60s"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    // (At once: no reading was waited for.)
    assert!(!stderr(&out).contains("waiting for the runtime"), "{}", stderr(&out));
    assert!(stderr(&out).contains("no such socket"), "{}", stderr(&out));
    // A listing cannot change: --wait asks the runtime.
    let out = run(&recording("A", &["check", "--images", listing, "--wait", "2s"]));
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("cannot be used with"), "{}", stderr(&out));
    let out = run(&recording("A", &["check", "-r", &cri.endpoint, "--wait", "60"]));
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("\"60\" has no unit: give a whole number and its unit"), "{}", stderr(&out));
}

/// CRI-O's own configuration, read at `/config` on its socket, tells
/// for certain whether it runs the files' list.
#[test]
fn crio_s_running_configuration_says_whether_it_runs_the_files_list() {
    let listing = "crio-listings/A/list.json";
    // Its configuration holds the files' list, and its flags agree.
    let cri = FakeCri::crio(cri_images(listing), "files-list.toml");
    let out = run(&recording("A", &["check", "-r", &cri.endpoint]));
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let text = stdout(&out).replace("\n         ", " ");
    assert!(
        text.contains(
            "\nrunning  its own configuration (GET /config) holds the files' list: 3 pattern(s); the list it \
             compiles has the files' list's fingerprint\n"
        ),
        "{text}"
    );
    // The same list, yet flags that disagree: not a missing reload.
    let cri = FakeCri::crio(unflagged(listing), "files-list.toml");
    let v = json(&run(&recording("A", &["check", "-r", &cri.endpoint, "--json"])));
    crate::json_schemas::assert_schema("check", &v);
    assert_eq!(v["running_list"]["same"], true, "{}", v["running_list"]);
    let causes = codes(&v["explain"]["causes"]);
    assert!(!causes.contains("not-reloaded") && !causes.contains("other-sources"), "{causes:?}");
    assert!(causes.contains("reload-rejected"), "{causes:?}");
    // An older list: said for certain, first, with what differs.
    let cri = FakeCri::crio(unflagged(listing), "older-list.toml");
    let out = run(&recording("A", &["check", "-r", &cri.endpoint, "--json"]));
    assert_eq!(code(&out), 1);
    let v = json(&out);
    crate::json_schemas::assert_schema("check", &v);
    let running = &v["running_list"];
    assert_eq!((running["same"].as_bool(), running["patterns"].as_u64()), (Some(false), Some(2)), "{running}");
    assert_eq!(running["only_in_files"], serde_json::json!(["*etcd*", "docker.io/library/nginx:1.25"]), "{running}");
    assert_eq!(running["only_running"], serde_json::json!(["quay.io/openshift-release-dev/cli:4.18"]), "{running}");
    let first = &v["explain"]["causes"][0];
    assert_eq!(first["code"], "not-reloaded", "{first}");
    assert!(first["message"].as_str().unwrap().contains("its own configuration (GET /config on its socket) differs"));
    let text = stdout(&run(&recording("A", &["check", "-r", &cri.endpoint, "--no-trunc"])));
    assert!(
        text.contains(
            "running  its own configuration (GET /config) holds another list: 2 of the files' pattern(s) missing, \
             e.g. \"*etcd*\", 1 that the files do not have, e.g. \"quay.io/openshift-release-dev/cli:4.18\": the \
             running CRI-O has not loaded the files; the list it compiles has the fingerprint sha256:"
        ),
        "{text}"
    );
    // A runtime that says nothing of its configuration: the guess, as before.
    let cri = FakeCri::start(unflagged(listing), None);
    let v = json(&run(&recording("A", &["check", "-r", &cri.endpoint, "--json"])));
    assert_eq!(v["running_list"]["same"], Value::Null, "{}", v["running_list"]);
    assert!(v["running_list"]["unknown"].as_str().unwrap().contains("fake-cri says nothing of its configuration"));
    assert!(codes(&v["explain"]["causes"]).contains("not-reloaded"));
}

#[test]
fn a_runtime_that_cannot_be_asked_is_named_with_what_to_check() {
    let dir = tempfile::tempdir().unwrap();
    let missing = format!("unix://{}/none.sock", dir.path().display());
    let out = run(&["check", "--runtime-endpoint", &missing]);
    assert_eq!(code(&out), 2);
    let said = stderr(&out);
    assert!(said.contains(&format!("cannot reach the runtime at {missing}: no such socket")), "{said}");
    assert!(said.contains("is the runtime running"), "{said}");
    // A socket that accepts and never answers: a time-out, not a hang.
    let silent = dir.path().join("silent.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&silent).unwrap();
    let out = run(&["check", "-r", &format!("unix://{}", silent.display())]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("no answer from unix://") && stderr(&out).contains("within 5 s"), "{}", stderr(&out));
    // A gRPC server that is no CRI image service.
    let cri = FakeCri::start(Vec::new(), Some(tonic::Code::Unimplemented));
    let out = run(&["check", "-r", &cri.endpoint]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("/runtime.v1.ImageService/ListImages with an error: Unimplemented"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("is it the runtime's CRI socket"), "{}", stderr(&out));
    // A file or a directory where the socket should be: not a socket,
    // said before connecting (connecting says "connection refused").
    let file = write_file(dir.path(), "crio.sock", "");
    let out = run(&["check", "-r", &file]);
    assert_eq!(code(&out), 2);
    let said = stderr(&out);
    assert!(said.contains(&format!("not a socket ({file} is a regular file)")), "{said}");
    assert!(said.contains("check the path") && !said.contains("refused"), "{said}");
    let out = run(&["check", "-r", dir.path().to_str().unwrap()]);
    assert!(stderr(&out).contains("is a directory"), "{}", stderr(&out));
    // containerd's ttrpc socket speaks no gRPC: named at once, with the
    // socket to give instead, not a 5 s time-out.
    let ttrpc = dir.path().join("containerd.sock.ttrpc");
    let _ttrpc = std::os::unix::net::UnixListener::bind(&ttrpc).unwrap();
    let out = run(&["check", "-r", &format!("unix://{}", ttrpc.display())]);
    assert_eq!(code(&out), 2);
    let said = stderr(&out);
    assert!(said.contains("containerd's ttrpc socket"), "{said}");
    assert!(said.contains(&format!("--runtime-endpoint unix://{}/containerd.sock", dir.path().display())), "{said}");
    // Only Unix sockets; and never both sources at once.
    let out = run(&["check", "-r", "tcp://127.0.0.1:1"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("give unix:///PATH"), "{}", stderr(&out));
    assert_eq!(code(&run(&["check", "-r", &missing, "--images", "node/images.json"])), 2);
}

/// An OCI image layout, as a tar `ctr images import` reads: one empty
/// layer, its config (labelled with `name`, so that each image is its
/// own), the manifest and the index naming it.
fn oci_layout(name: &str) -> Vec<u8> {
    use sha2::{Digest, Sha256};
    let digest = |bytes: &[u8]| format!("sha256:{:x}", Sha256::digest(bytes));
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "powerpc64" => "ppc64le",
        other => other,
    };
    // An empty tar: two zero blocks.
    let layer = vec![0u8; 1024];
    let config = serde_json::json!({
        "architecture": arch,
        "os": "linux",
        "config": { "Labels": { "crio-pin.test": name } },
        "rootfs": { "type": "layers", "diff_ids": [digest(&layer)] },
    })
    .to_string();
    let manifest = serde_json::json!({
        "schemaVersion": 2,
        "mediaType": "application/vnd.oci.image.manifest.v1+json",
        "config": { "mediaType": "application/vnd.oci.image.config.v1+json", "digest": digest(config.as_bytes()), "size": config.len() },
        "layers": [{ "mediaType": "application/vnd.oci.image.layer.v1.tar", "digest": digest(&layer), "size": layer.len() }],
    })
    .to_string();
    let tag = name.rsplit_once(':').unwrap().1;
    let index = serde_json::json!({
        "schemaVersion": 2,
        "manifests": [{
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "digest": digest(manifest.as_bytes()),
            "size": manifest.len(),
            "platform": { "architecture": arch, "os": "linux" },
            "annotations": { "io.containerd.image.name": name, "org.opencontainers.image.ref.name": tag },
        }],
    })
    .to_string();
    let mut tar = tar::Builder::new(Vec::new());
    let mut add = |path: String, bytes: &[u8]| {
        let mut header = tar::Header::new_ustar();
        header.set_size(bytes.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(&mut header, path, bytes).unwrap();
    };
    add("oci-layout".into(), br#"{"imageLayoutVersion": "1.0.0"}"#);
    add("index.json".into(), index.as_bytes());
    for blob in [&layer[..], config.as_bytes(), manifest.as_bytes()] {
        add(format!("blobs/sha256/{}", &digest(blob)[7..]), blob);
    }
    tar.into_inner().unwrap()
}

/// A containerd of the test's own: its config, root, state and sockets in
/// a temporary directory (never the system's), killed when dropped.
struct LiveContainerd {
    dir: tempfile::TempDir,
    child: std::process::Child,
    socket: PathBuf,
}

impl Drop for LiveContainerd {
    fn drop(&mut self) {
        // The process this test started, by its id.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl LiveContainerd {
    /// Started and answering, or why not.
    fn start() -> Result<LiveContainerd, String> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return Err("not root (containerd needs root)".into());
        }
        for tool in ["containerd", "ctr"] {
            if Command::new(tool).arg("--version").output().is_err() {
                return Err(format!("no {tool} on PATH (apt-get install containerd)"));
            }
        }
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        let at = |name: &str| dir.path().join(name).display().to_string();
        // Version 2, which 1.6 reads and 2.x migrates; the snapshotter that
        // needs no kernel support; nothing at the system's default paths.
        let config = format!(
            "version = 2\nroot = {root:?}\nstate = {state:?}\n\
             disabled_plugins = [\"io.containerd.snapshotter.v1.btrfs\", \"io.containerd.snapshotter.v1.zfs\", \
             \"io.containerd.snapshotter.v1.devmapper\", \"io.containerd.snapshotter.v1.aufs\"]\n\
             [grpc]\n  address = {socket:?}\n[ttrpc]\n  address = {ttrpc:?}\n\
             [debug]\n  address = \"\"\n[metrics]\n  address = \"\"\n\
             [plugins.\"io.containerd.internal.v1.opt\"]\n  path = {opt:?}\n\
             [plugins.\"io.containerd.grpc.v1.cri\"]\n  stream_server_address = \"127.0.0.1\"\n\
             [plugins.\"io.containerd.grpc.v1.cri\".containerd]\n  snapshotter = \"native\"\n\
             [plugins.\"io.containerd.grpc.v1.cri\".cni]\n  conf_dir = {cni:?}\n  bin_dir = {cni:?}\n",
            root = at("root"),
            state = at("state"),
            socket = at("containerd.sock"),
            ttrpc = at("containerd.sock.ttrpc"),
            opt = at("opt"),
            cni = at("cni"),
        );
        let config = write_file(dir.path(), "config.toml", config);
        let log = std::fs::File::create(dir.path().join("containerd.log")).map_err(|e| e.to_string())?;
        let child = Command::new("containerd")
            .args(["--config", &config])
            .stdin(Stdio::null())
            .stdout(log.try_clone().map_err(|e| e.to_string())?)
            .stderr(log)
            .spawn()
            .map_err(|e| format!("cannot start containerd: {e}"))?;
        let socket = dir.path().join("containerd.sock");
        let daemon = LiveContainerd { dir, child, socket };
        let deadline = Instant::now() + Duration::from_secs(120);
        while daemon.ctr(&["version"]).is_err() {
            if Instant::now() > deadline {
                let log = std::fs::read_to_string(daemon.dir.path().join("containerd.log")).unwrap_or_default();
                let tail: Vec<&str> = log.lines().rev().take(5).collect();
                return Err(format!("containerd did not answer within 120 s; its log ends: {}", tail.join(" | ")));
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        Ok(daemon)
    }

    /// `ctr` on this daemon's socket.
    fn ctr(&self, args: &[&str]) -> Result<String, String> {
        let out =
            Command::new("ctr").arg("--address").arg(&self.socket).args(args).output().map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!("ctr {args:?}: {}", String::from_utf8_lossy(&out.stderr)));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }

    fn import(&self, name: &str) {
        let tar = write_file(self.dir.path(), &format!("{}.tar", name.replace(['/', ':'], "_")), oci_layout(name));
        self.ctr(&["-n", "k8s.io", "images", "import", "--snapshotter", "native", &tar]).unwrap();
    }
}

/// Says on the test's standard error, past cargo's capture, that the live
/// containerd check did not run and why; fails instead where it is
/// required (CI, which installs containerd).
fn skipped(why: &str) {
    if std::env::var_os("CRIO_PIN_REQUIRE_CONTAINERD").is_some() {
        panic!("the check against a live containerd must run here (CRIO_PIN_REQUIRE_CONTAINERD), but: {why}");
    }
    let line =
        format!("SKIPPED: crio-pin check against a live containerd: {why}; run as root with containerd installed\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
}

#[test]
fn check_reads_a_live_containerd_over_its_socket() {
    let daemon = match LiveContainerd::start() {
        Ok(daemon) => daemon,
        Err(why) => return skipped(&why),
    };
    let pinned = "docker.io/library/crio-pin-pinned:1";
    let other = "quay.io/crio-pin/unpinned:2";
    for name in [pinned, other] {
        daemon.import(name);
    }
    // What the tool reads is containerd 2.x's table, from a file of the test.
    let pins = write_file(
        daemon.dir.path(),
        "pins.toml",
        format!("version = 3\n[plugins.'io.containerd.cri.v1.images'.pinned_images]\ntest = {pinned:?}\n"),
    );
    let endpoint = format!("unix://{}", daemon.socket.display());
    let args = ["--runtime", "containerd", "-c", &pins, "check", "--runtime-endpoint", &endpoint];
    // The CRI plugin learns of an import by an event: wait for both images.
    let deadline = Instant::now() + Duration::from_secs(120);
    let v = loop {
        let out = run(&[&args[..], &["--json"]].concat());
        assert_ne!(code(&out), 2, "{}", stderr(&out));
        let v = json(&out);
        if v["summary"]["images"] == 2 || Instant::now() > deadline {
            break v;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let cri = &v["images_from"]["cri"];
    assert_eq!(cri["name"], "containerd", "{cri}");
    let version = cri["version"].as_str().unwrap().to_string();
    // The names read over the socket, as containerd stores them.
    let images = v["explain"]["images"].as_array().unwrap();
    let tags: BTreeSet<&str> = images.iter().map(|i| i["names"][0].as_str().unwrap()).collect();
    assert_eq!(tags, BTreeSet::from([pinned, other]), "{v}");
    for image in images {
        let names: Vec<&str> = image["names"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
        // An import records the name alone (a pull would add repo@digest).
        assert_eq!(names.len(), 1, "{image}");
        assert!(image["id"].as_str().unwrap().starts_with("sha256:"), "{image}");
        assert_eq!(image["pinned"], names[0] == pinned, "{image}");
    }
    let reported: Vec<bool> = images.iter().map(|i| i["runtime_pinned"].as_bool().unwrap()).collect();
    let out = run(&args);
    let text = stdout(&out);
    assert_eq!(labels(&text, 5), SUMMARY, "{text}");
    assert!(text.replace("\n         ", " ").contains(&format!("which answers as containerd {version}")), "{text}");
    let said = if version.starts_with("1.6.") {
        // containerd 1.6 sets no pinned flag and pins nothing: what the
        // configuration pins is a disagreement, and the likely cause says why.
        assert_eq!(reported, [false, false], "{v}");
        assert_eq!(code(&out), 1, "{text}");
        let causes: Vec<&str> =
            v["explain"]["causes"].as_array().unwrap().iter().map(|c| c["code"].as_str().unwrap()).collect();
        // Its version rules out every other cause: the one said.
        assert_eq!(causes, ["older-runtime"], "{causes:?}");
        assert!(text.contains(&format!("the running containerd is {version}, older than 2.0")), "{text}");
        // No wait makes it pin: --wait runs out, with the same one cause.
        let start = Instant::now();
        let out = run(&[&args[..], &["--wait", "2s", "--json"]].concat());
        let took = start.elapsed();
        assert_eq!(code(&out), 1, "{}", stderr(&out));
        assert!(took >= Duration::from_secs(2), "took {took:?}");
        let waited = json(&out);
        assert_eq!(waited["summary"]["waited"]["agreed"], false, "{}", waited["summary"]);
        assert_eq!(codes(&waited["explain"]["causes"]), BTreeSet::from(["older-runtime".to_string()]));
        // Its Status info has no list to compare.
        assert_eq!(waited["running_list"]["same"], Value::Null, "{}", waited["running_list"]);
        "reports pinned = false for every image (1.6 has no pinned flag): the pin is a disagreement"
    } else {
        // A containerd with the flag: whatever it reports, the status says
        // whether it agrees with the configuration.
        let disagree = images.iter().filter(|i| i["check"] == "disagree").count();
        assert_eq!(code(&out), i32::from(disagree > 0), "{text}");
        "reports its own pinned flags"
    };
    let line = format!("live containerd {version} at {endpoint}: {said} (runtime_pinned: {reported:?})\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
}

/// The fingerprint `config` and `check` print is the library's of the
/// list CRI-O compiles (its pinned_images, then the pause image it
/// appends), and the running CRI-O's is computed alike from its `/config`.
#[test]
fn the_fingerprint_is_the_library_s_of_the_list_the_runtime_compiles() {
    let listing = "crio-listings/A/list.json";
    let config = json(&run(&recording("A", &["config", "--json"])));
    let patterns: Vec<&str> =
        config["patterns"].as_array().unwrap().iter().map(|p| p["pattern"].as_str().unwrap()).collect();
    assert_eq!(patterns.last(), Some(&"registry.k8s.io/pause:3.10.1"), "{patterns:?}");
    let want = crio_pin::fingerprint(&patterns, crio_pin::Flags::CRIO).to_string();
    assert_eq!(config["fingerprint"], want.as_str());
    assert!(stdout(&run(&recording("A", &["config"]))).contains(&format!("fingerprint: {want} ")));
    // Under other flags, another list: another fingerprint.
    let anchored = json(&run(&recording("A", &["--anchor-globs", "config", "--json"])));
    let flags = crio_pin::Flags::CRIO | crio_pin::Flags::ANCHOR_GLOBS;
    assert_eq!(anchored["fingerprint"], crio_pin::fingerprint(&patterns, flags).to_string().as_str());
    // check says it, and the running CRI-O's, the same when it holds the files' list in their order.
    let cri = FakeCri::crio(cri_images(listing), "files-list.toml");
    let v = json(&run(&recording("A", &["check", "-r", &cri.endpoint, "--json"])));
    assert_eq!(v["summary"]["fingerprint"], want.as_str(), "{}", v["summary"]);
    assert_eq!(v["config"]["fingerprint"], want.as_str());
    let running = &v["running_list"];
    assert_eq!((running["fingerprint"].as_str(), running["fingerprint_same"].as_bool()), (Some(&*want), Some(true)));
    let text = stdout(&run(&recording("A", &["check", "-r", &cri.endpoint, "--no-trunc"])));
    assert!(text.contains(&format!("; fingerprint {want}\n")), "{text}");
    assert!(text.contains("the list it compiles has the files' list's fingerprint\n"), "{text}");
    // An older list: its own fingerprint, of its list and pause image as the dump gives them.
    let cri = FakeCri::crio(cri_images(listing), "older-list.toml");
    let v = json(&run(&recording("A", &["check", "-r", &cri.endpoint, "--json"])));
    let dump: toml::Table =
        std::fs::read_to_string(data().join("crio-config/older-list.toml")).unwrap().parse().unwrap();
    let image = &dump["crio"]["image"];
    let mut held: Vec<&str> = image["pinned_images"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
    held.push(image["pause_image"].as_str().unwrap());
    let older = crio_pin::fingerprint(&held, crio_pin::Flags::CRIO).to_string();
    let running = &v["running_list"];
    assert_eq!((running["fingerprint"].as_str(), running["fingerprint_same"].as_bool()), (Some(&*older), Some(false)));
    let text = stdout(&run(&recording("A", &["check", "-r", &cri.endpoint, "--no-trunc"])));
    assert!(
        text.contains(&format!("the list it compiles has the fingerprint {older}, not the files' list's")),
        "{text}"
    );
}

/// The verdict counts the warnings beside a pass, --fail-on-warnings fails
/// on them, and -q prints the verdict alone with the same exit status.
#[test]
fn the_verdict_counts_warnings_and_can_fail_on_them() {
    // Recording A: every flag agrees, and lint warns once.
    let listing = "crio-listings/A/list.json";
    let base = recording("A", &["check", "--images", listing]);
    let out = run(&base);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    assert!(
        stdout(&out).starts_with("check    passed, with 1 warning(s) (below); --fail-on-warnings"),
        "{}",
        stdout(&out)
    );
    let failing = run(&[&base[..], &["--fail-on-warnings"]].concat());
    assert_eq!(code(&failing), 1, "{}", stdout(&failing));
    let said = stdout(&failing);
    assert!(said.starts_with("check    FAILED (exit status 1): 1 warning(s) (--fail-on-warnings)\n"), "{said}");
    let v = json(&run(&[&base[..], &["--fail-on-warnings", "--json"]].concat()));
    let summary = &v["summary"];
    assert_eq!((summary["warnings"].as_u64(), summary["warnings_fail"].as_bool()), (Some(1), Some(true)), "{summary}");
    assert_eq!(summary["exit_status"], 1);
    // -q: the first line alone, the same status.
    for args in [base.clone(), node(&["check", "--images", "node/images.json"])] {
        let full = run(&args);
        let quiet = run(&[&args[..], &["-q"]].concat());
        assert_eq!(code(&quiet), code(&full), "{args:?}");
        let head: String =
            stdout(&full).lines().take_while(|l| !l.starts_with("runtime ")).map(|l| format!("{l}\n")).collect();
        assert_eq!(stdout(&quiet), head, "{args:?}");
    }
    assert_eq!(code(&run(&[&base[..], &["-q", "--json"]].concat())), 2);
}

/// lint -q: the closing line of counts alone, the same exit status.
#[test]
fn lint_q_prints_the_counts_alone() {
    for args in [node(&["lint"]), vec!["--patterns", "lint-patterns.txt", "lint"]] {
        let full = run(&args);
        let quiet = run(&[&args[..], &["-q"]].concat());
        assert_eq!(code(&quiet), code(&full), "{args:?}");
        let counts = stdout(&quiet);
        assert!(counts.contains(" error(s), ") && counts.contains(" warning(s), "), "{counts}");
        assert!(stdout(&full).ends_with(&counts) && counts.lines().count() <= 3, "{counts}");
    }
}
