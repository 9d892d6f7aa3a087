//! The images a runtime reports over its CRI socket: the kubelet's own
//! question (`runtime.v1.ImageService/ListImages`), asked as crictl asks it,
//! so that `check` needs no crictl and no pipe. The answer becomes the same
//! `Image` values a `crictl images -o json` listing gives (`images::listed`),
//! and everything after is shared with `--images`.
//!
//! gRPC over a Unix socket, with tonic's client on a current-thread tokio
//! runtime, one connection for the command (`check --wait` asks again on
//! it); the runtime's name and version
//! (`RuntimeService/Version`) are asked first, for the summary, and to tell
//! a socket that answers but is no CRI from one that does not answer. Each
//! step is bounded by `TIMEOUT`: a socket that accepts and never answers
//! (a wrong file, a hung daemon) is an error naming the endpoint, not a
//! hang of a monitoring job.

pub mod messages;
pub mod running;

use std::path::PathBuf;
use std::time::Duration;

use tonic::codec::ProstCodec;
use tonic::transport::{Channel, Endpoint as TonicEndpoint, Uri};

use crate::error::InputError;
use crate::images::{self, Image, Naming};
use crate::input::MAX_BYTES;

/// How long connecting, and then each call, may take.
pub const TIMEOUT: Duration = Duration::from_secs(5);

/// The variable crictl reads the endpoint from when `--runtime-endpoint` is
/// not given.
pub const ENDPOINT_ENV: &str = "CONTAINER_RUNTIME_ENDPOINT";

/// A CRI endpoint as crictl names it: `unix:///run/containerd/containerd.sock`
/// (a bare path is taken as crictl takes it, as a Unix socket).
#[derive(Clone, Debug)]
pub struct Endpoint {
    /// As given, for messages.
    pub text: String,
    pub path: PathBuf,
}

impl Endpoint {
    pub fn parse(text: &str) -> Result<Endpoint, InputError> {
        let path = match text.split_once("://") {
            Some(("unix", path)) => path,
            Some((scheme, _)) => {
                return Err(InputError(format!(
                    "--runtime-endpoint {text}: a {scheme}:// endpoint; crio-pin reads a local runtime's Unix \
                     socket only: give unix:///PATH (as crictl takes it, e.g. unix:///run/containerd/containerd.sock)"
                )))
            }
            None => text,
        };
        if path.is_empty() {
            return Err(InputError(format!(
                "--runtime-endpoint {text:?}: no socket path; give unix:///PATH, e.g. unix:///var/run/crio/crio.sock"
            )));
        }
        Ok(Endpoint { text: text.to_string(), path: PathBuf::from(path) })
    }
}

/// Who answered, as its `Version` says.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Runtime {
    pub endpoint: String,
    /// The runtime's own name (`containerd`, `cri-o`, `docker` for cri-dockerd).
    pub name: String,
    pub version: String,
    /// The CRI version it speaks (`v1`).
    pub api_version: String,
}

/// A runtime's CRI socket, connected, with who answered on it: asked
/// again for its images while `check --wait` waits.
pub struct Client {
    endpoint: Endpoint,
    tokio: tokio::runtime::Runtime,
    channel: Channel,
    pub runtime: Runtime,
}

impl Client {
    /// Connected to `endpoint`, and its `Version` asked.
    pub fn connect(endpoint: &Endpoint) -> Result<Client, InputError> {
        not_a_grpc_socket(endpoint)?;
        let tokio = tokio::runtime::Builder::new_current_thread()
            .enable_io()
            .enable_time()
            .build()
            .map_err(|e| InputError(format!("cannot start the CRI client: {e}")))?;
        let channel = tokio.block_on(connect(endpoint))?;
        let request = messages::VersionRequest { version: "v1".into() };
        let version: messages::VersionResponse =
            tokio.block_on(call(endpoint, channel.clone(), messages::VERSION, request))?;
        let runtime = Runtime {
            endpoint: endpoint.text.clone(),
            name: version.runtime_name,
            version: version.runtime_version,
            api_version: version.runtime_api_version,
        };
        Ok(Client { endpoint: endpoint.clone(), tokio, channel, runtime })
    }

    /// The runtime's images, each with the names a runtime named by
    /// `naming` matches.
    pub fn list_images(&self, naming: Naming) -> Result<Vec<Image>, InputError> {
        let channel = self.channel.clone();
        let listed: messages::ListImagesResponse = self.tokio.block_on(call(
            &self.endpoint,
            channel,
            messages::LIST_IMAGES,
            messages::ListImagesRequest {},
        ))?;
        if listed.images.len() > images::MAX_IMAGES {
            return Err(images::too_many_images(&self.endpoint.text, listed.images.len()));
        }
        let images = listed
            .images
            .into_iter()
            .map(|i| images::listed(i.id, i.repo_tags, i.repo_digests, i.pinned, naming))
            .collect();
        Ok(images)
    }
}

async fn connect(endpoint: &Endpoint) -> Result<Channel, InputError> {
    let path = endpoint.path.clone();
    let connector = tower::service_fn(move |_: Uri| {
        let path = path.clone();
        async move { tokio::net::UnixStream::connect(path).await.map(hyper_util::rt::TokioIo::new) }
    });
    // The authority is not used on a Unix socket; crictl sends `localhost`.
    let tonic_endpoint = TonicEndpoint::from_static("http://localhost").connect_timeout(TIMEOUT);
    match tokio::time::timeout(TIMEOUT, tonic_endpoint.connect_with_connector(connector)).await {
        Ok(Ok(channel)) => Ok(channel),
        Ok(Err(e)) => Err(cannot_connect(endpoint, &e)),
        Err(_) => Err(no_answer(endpoint, "connecting")),
    }
}

/// One unary call, bounded by `TIMEOUT`; an answer may be as large as any
/// input the tool reads (gRPC's default of 4 MiB is a few thousand images).
async fn call<Q, A>(endpoint: &Endpoint, channel: Channel, path: &'static str, request: Q) -> Result<A, InputError>
where
    Q: prost::Message + Send + Sync + 'static,
    A: prost::Message + Default + Send + Sync + 'static,
{
    let mut grpc = tonic::client::Grpc::new(channel).max_decoding_message_size(MAX_BYTES as usize);
    let answer = async {
        grpc.ready().await.map_err(|e| tonic::Status::unavailable(e.to_string()))?;
        let path = http::uri::PathAndQuery::from_static(path);
        grpc.unary(tonic::Request::new(request), path, ProstCodec::<Q, A>::default()).await
    };
    match tokio::time::timeout(TIMEOUT, answer).await {
        Ok(Ok(answer)) => Ok(answer.into_inner()),
        Ok(Err(status)) => Err(refused(endpoint, path, &status)),
        Err(_) => Err(no_answer(endpoint, path)),
    }
}

/// Err when the path cannot be a runtime's gRPC socket, said before
/// connecting: a file or directory there (connecting to it says only
/// "connection refused"), or containerd's ttrpc socket, which speaks no
/// HTTP/2 and so leaves the client waiting out `TIMEOUT`.
fn not_a_grpc_socket(endpoint: &Endpoint) -> Result<(), InputError> {
    use std::os::unix::fs::FileTypeExt;
    let path = &endpoint.path;
    if path.file_name().is_some_and(|name| name.to_string_lossy().ends_with(".ttrpc")) {
        let grpc = path.with_extension("");
        return Err(InputError(format!(
            "{}: this is containerd's ttrpc socket (for its shims), which answers no CRI; give its gRPC socket, \
             e.g. --runtime-endpoint unix://{} ([grpc] address in its config.toml)",
            endpoint.text,
            grpc.display()
        )));
    }
    let what = match std::fs::metadata(path) {
        Ok(meta) if meta.file_type().is_socket() => return Ok(()),
        Ok(meta) if meta.is_dir() => "a directory",
        Ok(meta) if meta.is_file() => "a regular file",
        Ok(_) => "a device or FIFO",
        // Said, as it is, by the connection.
        Err(_) => return Ok(()),
    };
    Err(InputError(format!(
        "cannot reach the runtime at {}: not a socket ({} is {what}); check the path: the runtime's CRI \
         socket (crictl's --runtime-endpoint, e.g. unix:///run/containerd/containerd.sock or \
         unix:///var/run/crio/crio.sock), created by the runtime when it starts; or give the output of \
         `crictl images -o json` with --images",
        endpoint.text,
        path.display()
    )))
}

/// What to check when nothing answers at `endpoint`.
const WHAT_TO_CHECK: &str = "is the runtime running, is this its CRI socket (crictl's --runtime-endpoint), \
                             and may this user open it (usually root only)? Or give the output of \
                             `crictl images -o json` with --images";

fn cannot_connect(endpoint: &Endpoint, e: &(dyn std::error::Error + 'static)) -> InputError {
    // The connector's own error, under tonic's.
    let mut source = Some(e);
    let mut io = None;
    while let Some(e) = source {
        if let Some(found) = e.downcast_ref::<std::io::Error>() {
            io = Some(found);
        }
        source = e.source();
    }
    let why = match io.map(std::io::Error::kind) {
        Some(std::io::ErrorKind::NotFound) => "no such socket".to_string(),
        Some(std::io::ErrorKind::PermissionDenied) => {
            "permission denied (run as root, or as its socket's group)".into()
        }
        Some(std::io::ErrorKind::ConnectionRefused) => "nothing listens on it (connection refused)".into(),
        _ => io.map_or_else(|| e.to_string(), ToString::to_string),
    };
    InputError(format!("cannot reach the runtime at {}: {why}; {WHAT_TO_CHECK}", endpoint.text))
}

fn no_answer(endpoint: &Endpoint, doing: &str) -> InputError {
    InputError(format!("no answer from {} within {} s ({doing}); {WHAT_TO_CHECK}", endpoint.text, TIMEOUT.as_secs()))
}

fn refused(endpoint: &Endpoint, path: &str, status: &tonic::Status) -> InputError {
    let hint = match status.code() {
        tonic::Code::Unimplemented => {
            "; it answers gRPC but not CRI v1 there: is it the runtime's CRI socket (containerd: its CRI plugin \
             enabled; not docker.sock but cri-dockerd's)?"
        }
        tonic::Code::Unavailable => "; is the runtime running, and is this its CRI socket?",
        _ => "",
    };
    InputError(format!(
        "{} answered {path} with an error: {:?}: {}{hint}",
        endpoint.text,
        status.code(),
        status.message()
    ))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn endpoints_are_read_as_crictl_reads_them() {
        let path = |text: &str| Endpoint::parse(text).map(|e| e.path);
        assert_eq!(
            path("unix:///run/containerd/containerd.sock").unwrap(),
            Path::new("/run/containerd/containerd.sock")
        );
        // A bare path is a Unix socket too.
        assert_eq!(path("/var/run/crio/crio.sock").unwrap(), Path::new("/var/run/crio/crio.sock"));
        for refused in ["tcp://127.0.0.1:2376", "npipe:////./pipe/dockershim", "unix://", ""] {
            let InputError(why) = path(refused).unwrap_err();
            assert!(why.contains("unix:///"), "{refused}: {why}");
        }
    }
}
