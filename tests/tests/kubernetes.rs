//! Every generated crate's Kubernetes manifests (`deploy/kubernetes/`) are valid against the
//! Kubernetes schemas (`kubernetes-validate --strict`, from PyPI), and the Deployment runs the
//! server as its probes, its drain and its variables expect: the Synaplan server, started with
//! the Deployment's own environment, answers its liveness and readiness probes and its metrics
//! port, knows every variable the manifest sets, and stops on SIGTERM within the grace period
//! the manifest gives it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use mcpgen_tests::{free_port, python_bin, repo_root, workspace_binary};
use serde_json::Value;

/// The `deploy/kubernetes/` folder of every generated crate.
fn folders() -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(repo_root().join("generated"))
        .expect("generated/ is readable")
        .map(|entry| entry.expect("an entry").path())
        .filter(|crate_dir| crate_dir.join("Cargo.toml").is_file())
        .map(|crate_dir| crate_dir.join("deploy/kubernetes"))
        .collect();
    found.sort();
    assert!(!found.is_empty(), "generated/ holds crates");
    found
}

/// The objects of a manifest file, in order.
fn objects(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{} is missing: {e}", path.display()));
    serde_saphyr::from_multiple(&text)
        .unwrap_or_else(|e| panic!("{} is not YAML: {e}", path.display()))
}

#[test]
fn every_manifest_is_valid_against_the_kubernetes_schemas() {
    let validate = python_bin("kubernetes-validate");
    for folder in folders() {
        let server = folder.join("server.yaml");
        let out = Command::new(&validate)
            .arg("--strict")
            .arg(&server)
            .output()
            .expect("kubernetes-validate runs");
        assert!(
            out.status.success(),
            "{} is not valid:\n{}{}",
            server.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let objects = objects(&server);
        let kinds: Vec<&str> = objects.iter().filter_map(|o| o["kind"].as_str()).collect();
        assert_eq!(
            kinds,
            [
                "Deployment",
                "Service",
                "HorizontalPodAutoscaler",
                "PodDisruptionBudget"
            ],
            "{}",
            server.display()
        );
        // The Kustomize base names every manifest of the folder, and only those.
        let kustomization = &objects_of_kustomization(&folder);
        let resources: Vec<&str> = kustomization["resources"]
            .as_array()
            .expect("resources")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        assert_eq!(resources, ["server.yaml"], "{}", folder.display());
        let deployment = &objects[0];
        let image = deployment["spec"]["template"]["spec"]["containers"][0]["image"]
            .as_str()
            .expect("an image");
        let image_name = kustomization["images"][0]["name"].as_str();
        assert_eq!(
            image.split(':').next(),
            image_name,
            "{}: the base's image entry names the Deployment's image",
            folder.display()
        );
        // Every object selects and is named after the same app.
        let app = deployment["metadata"]["name"].as_str().expect("a name");
        for object in &objects {
            assert_eq!(object["metadata"]["name"].as_str(), Some(app));
        }
        assert_eq!(
            objects[1]["spec"]["selector"]["app.kubernetes.io/name"].as_str(),
            Some(app)
        );
    }
}

fn objects_of_kustomization(folder: &Path) -> Value {
    let mut docs = objects(&folder.join("kustomization.yaml"));
    assert_eq!(docs.len(), 1);
    let doc = docs.remove(0);
    assert_eq!(doc["kind"], "Kustomization");
    doc
}

/// The container's variables with a plain value, and the names of those from the Secret.
fn environment(container: &Value) -> (Vec<(String, String)>, Vec<String>) {
    let mut plain = Vec::new();
    let mut secret = Vec::new();
    for var in container["env"].as_array().expect("env") {
        let name = var["name"].as_str().expect("a name").to_owned();
        match var["value"].as_str() {
            Some(value) => plain.push((name, value.to_owned())),
            None => {
                assert!(
                    var["valueFrom"]["secretKeyRef"]["key"].as_str() == Some(name.as_str()),
                    "{name} comes from the Secret key of its own name"
                );
                secret.push(name);
            }
        }
    }
    (plain, secret)
}

#[tokio::test]
async fn the_synaplan_deployment_starts_answers_its_probes_and_drains_on_sigterm() {
    let manifest = repo_root().join("generated/synaplan/deploy/kubernetes/server.yaml");
    let objects = objects(&manifest);
    let pod = &objects[0]["spec"]["template"]["spec"];
    let container = &pod["containers"][0];
    let (plain, secret) = environment(container);
    let exe = workspace_binary("synaplan-mcp");

    // Every variable the manifest sets is one the server reads.
    let help = Command::new(&exe)
        .arg("--help")
        .output()
        .expect("the server runs");
    let help = String::from_utf8_lossy(&help.stdout);
    for name in plain.iter().map(|(n, _)| n).chain(&secret) {
        assert!(
            help.contains(&format!("[env: {name}")) || name == "MCPGEN_TOKEN_SECRET",
            "the manifest sets {name}, which `synaplan-mcp --help` does not name"
        );
    }

    // The drain fits the grace period: preStop's pause, then the shutdown timeout.
    let grace = pod["terminationGracePeriodSeconds"]
        .as_u64()
        .expect("grace");
    let pause: u64 = container["lifecycle"]["preStop"]["exec"]["command"][1]
        .as_str()
        .and_then(|s| s.parse().ok())
        .expect("preStop sleeps");
    let shutdown: u64 = plain
        .iter()
        .find(|(n, _)| n == "MCPGEN_SHUTDOWN_TIMEOUT")
        .and_then(|(_, v)| v.parse().ok())
        .expect("MCPGEN_SHUTDOWN_TIMEOUT");
    assert!(pause + shutdown < grace, "{pause} + {shutdown} < {grace}");

    // The ports the probes and the annotations name are the ones the server listens on.
    let ports = container["ports"].as_array().expect("ports");
    let port_of = |name: &str| {
        ports
            .iter()
            .find(|p| p["name"] == name)
            .and_then(|p| p["containerPort"].as_u64())
            .expect("a named port")
    };
    let listen = plain
        .iter()
        .find(|(n, _)| n == "MCPGEN_LISTEN")
        .map(|(_, v)| v.clone())
        .expect("MCPGEN_LISTEN");
    assert!(listen.ends_with(&format!(":{}", port_of("http"))));
    let annotations = &objects[0]["spec"]["template"]["metadata"]["annotations"];
    assert_eq!(
        annotations["prometheus.io/port"].as_str(),
        Some(port_of("metrics").to_string().as_str())
    );

    // Start it with the manifest's environment, on loopback ports of this machine.
    let http = free_port();
    let metrics = free_port();
    let spool = tempfile::tempdir().expect("tempdir");
    let mut server = Command::new(&exe);
    server
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default());
    for (name, value) in &plain {
        let value = match name.as_str() {
            "MCPGEN_LISTEN" => format!("127.0.0.1:{http}"),
            "MCPGEN_METRICS_LISTEN" => format!("127.0.0.1:{metrics}"),
            "MCPGEN_AUDIT_DB_SPOOL" => spool.path().join("audit.spool").display().to_string(),
            _ => value.clone(),
        };
        server.env(name, value);
    }
    // The Secret keys the server needs; the optional ones stay unset.
    server.env(
        "MCPGEN_TOKEN_SECRET",
        "k8s-test-secret-0123456789abcdef0123",
    );
    if secret.iter().any(|name| name == "MCPGEN_UPSTREAM_URL") {
        server.env("MCPGEN_UPSTREAM_URL", "http://127.0.0.1:9");
    }
    let mut child = server
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server starts");
    let base = format!("http://127.0.0.1:{http}");
    for probe in ["livenessProbe", "readinessProbe"] {
        let path = container[probe]["httpGet"]["path"]
            .as_str()
            .expect("a path");
        assert_eq!(container[probe]["httpGet"]["port"], "http");
        assert!(
            mcpgen_tests::wait_ready(&format!("{base}{path}")).await,
            "{probe} {path} does not answer 200"
        );
    }
    let scrape = reqwest::get(format!("http://127.0.0.1:{metrics}/metrics"))
        .await
        .expect("the metrics port answers");
    assert!(scrape.status().is_success());
    let text = scrape.text().await.expect("a body");
    assert!(text.contains("mcpgen_calls_in_flight"), "{text}");

    // SIGTERM, as the kubelet sends after preStop: the server stops on its own, well within
    // the grace period (the kubelet would kill it after).
    let pid = child.id().to_string();
    let status = Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill runs");
    assert!(status.success());
    let deadline = std::time::Instant::now() + Duration::from_secs(grace - pause);
    let exit = loop {
        if let Some(exit) = child.try_wait().expect("wait") {
            break exit;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("the server did not stop within the grace period after SIGTERM");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let mut log = String::new();
    if let Some(mut stderr) = child.stderr.take() {
        use std::io::Read as _;
        let _ = stderr.read_to_string(&mut log);
    }
    assert!(exit.success(), "exit {exit:?}:\n{log}");
    // MCPGEN_LOG_FORMAT=json: every log line is a JSON object.
    for line in log.lines().filter(|l| !l.trim().is_empty()) {
        assert!(
            serde_json::from_str::<Value>(line).is_ok_and(|v| v.is_object()),
            "not a JSON log line: {line}"
        );
    }
}
