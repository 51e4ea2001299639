//! Every query parameter of the spec that takes a list, sent each way a
//! client sends one: repeated keys (`types=a&types=b`, the spec's exploded
//! `form` style, which the generated client uses), one comma-joined value
//! (`types=a,b`), and both mixed. The operation's handler (a test's, in
//! place of the model's, so that what the fake *read* is what the reply
//! says) sees every value, in order, in process and over HTTP.

use crate::http;

use metal_api::operation::{self, Operation};
use metal_fake::{Call, Fake, ServerConfig};
use serde_json::{json, Value};

const TOKEN: &str = "lists-token";

/// The spec's operation object of `op`.
fn spec_operation<'s>(spec: &'s Value, op: &Operation) -> &'s Value {
    let method = op.method.as_str().to_ascii_lowercase();
    &spec["paths"][op.path][method.as_str()]
}

/// Every (operation, list parameter, its enum values) of the spec, read
/// from the spec itself; checks on the way that the generated
/// `Operation::lists` are exactly the spec's array-valued query parameters.
fn lists() -> Vec<(&'static Operation, &'static str, Vec<String>)> {
    let spec: Value = serde_json::from_str(include_str!("../../../openapi/metal.json")).unwrap();
    let mut out = Vec::new();
    for op in operation::ALL {
        let params = spec_operation(&spec, op)["parameters"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let resolved: Vec<Value> = params
            .into_iter()
            .map(|p| match p["$ref"].as_str() {
                Some(r) => spec.pointer(r.trim_start_matches('#')).unwrap().clone(),
                None => p,
            })
            .collect();
        let arrays: Vec<&Value> = resolved
            .iter()
            .filter(|p| p["in"] == "query" && p["schema"]["type"] == "array")
            .collect();
        let names: Vec<&str> = arrays.iter().map(|p| p["name"].as_str().unwrap()).collect();
        assert_eq!(op.lists, names.as_slice(), "{}", op.id);
        for (name, p) in op.lists.iter().zip(&arrays) {
            let values: Vec<String> = p["schema"]["items"]["enum"]
                .as_array()
                .unwrap_or_else(|| panic!("{} {name}: no enum", op.id))
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect();
            assert!(values.len() >= 3, "{} {name}", op.id);
            out.push((*op, *name, values));
        }
    }
    out
}

/// `op`'s path with every parameter filled.
fn path_of(op: &Operation) -> String {
    let mut path = op.path.to_string();
    while let Some(start) = path.find('{') {
        let end = start + path[start..].find('}').unwrap();
        path.replace_range(start..=end, &uuid::Uuid::new_v4().to_string());
    }
    format!("/metal/v1{path}")
}

/// `name=value`, the brackets of a name (`categories[]`) percent-encoded
/// as clients send them; commas stay as they are.
fn pair(name: &str, value: &str) -> String {
    format!("{}={value}", name.replace('[', "%5B").replace(']', "%5D"))
}

/// The queries each list is sent with, and the values each must read as.
fn queries(name: &str, v: &[String]) -> Vec<(String, Vec<String>)> {
    let (a, b, c) = (&v[0], &v[1], &v[2]);
    vec![
        // Repeated keys, both orders.
        (
            format!("{}&{}", pair(name, a), pair(name, b)),
            vec![a.clone(), b.clone()],
        ),
        (
            format!("{}&{}", pair(name, b), pair(name, a)),
            vec![b.clone(), a.clone()],
        ),
        // Comma-joined.
        (pair(name, &format!("{a},{b}")), vec![a.clone(), b.clone()]),
        // Both at once, with another parameter between them.
        (
            format!(
                "{}&page=1&{}",
                pair(name, &format!("{a},{b}")),
                pair(name, c)
            ),
            vec![a.clone(), b.clone(), c.clone()],
        ),
        // One value.
        (pair(name, c), vec![c.clone()]),
    ]
}

/// A fake whose handler of every list-taking operation answers with the
/// values it read of each of the operation's lists.
fn echoing_fake() -> Fake {
    let mut builder = Fake::builder().token(TOKEN);
    for op in operation::ALL.iter().filter(|op| !op.lists.is_empty()) {
        builder = builder.handler(op.id, move |call: &Call| {
            let read: serde_json::Map<String, Value> = op
                .lists
                .iter()
                .map(|name| (name.to_string(), json!(call.list(name))))
                .collect();
            Ok(Value::Object(read))
        });
    }
    builder.build()
}

#[tokio::test]
async fn every_list_parameter_reads_repeated_keys_and_commas_in_process_and_over_http() {
    let lists = lists();
    // findIPReservations's types, the categories of three device and
    // reservation lists, and findPlans's categories[].
    assert!(lists.len() >= 5, "{lists:?}");
    let fake = echoing_fake();
    let server = crate::http::serve(&fake, ServerConfig::new(TOKEN)).await;
    let http_root = server.base_url().trim_end_matches("/metal/v1").to_string();
    let client = http::client();
    let mut checked = 0;
    for (op, name, values) in &lists {
        for (query, want) in queries(name, values) {
            let target = format!("{}?{query}", path_of(op));
            let method = reqwest::Method::from_bytes(op.method.as_str().as_bytes()).unwrap();
            for over_http in [false, true] {
                let base = if over_http {
                    &http_root
                } else {
                    "http://metal-fake.invalid"
                };
                let request = client
                    .request(method.clone(), format!("{base}{target}"))
                    .header("x-auth-token", TOKEN)
                    .build()
                    .unwrap();
                let reply = if over_http {
                    client.execute(request).await.unwrap()
                } else {
                    use metal_api::Exchange;
                    fake.exchange(op, request).await.unwrap()
                };
                let status = reply.status().as_u16();
                let body: Value = reply.json().await.unwrap();
                let how = if over_http { "over HTTP" } else { "in process" };
                assert_eq!(status, op.success, "{} {target} {how}: {body}", op.id);
                assert_eq!(body[*name], json!(want), "{} {target} {how}: {body}", op.id);
                checked += 1;
            }
        }
    }
    assert_eq!(checked, lists.len() * 5 * 2);
    server.shutdown().await;
}

#[test]
fn a_scalar_given_twice_keeps_its_last_value_and_a_list_splits_only_on_commas() {
    // The default handler of a test: what the fake read of a scalar
    // (`page`) and of a name no list of the operation has.
    let op = &operation::FIND_IP_RESERVATIONS;
    assert_eq!(op.lists, ["types"]);
    let fake = Fake::builder()
        .token(TOKEN)
        .handler(op.id, |call: &Call| {
            Ok(json!({
                "page": call.query("page"),
                "types": call.query("types"),
                "exclude": call.list("exclude"),
            }))
        })
        .build();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let body: Value = rt.block_on(async {
        let request = http::client()
            .get(format!(
                "http://metal-fake.invalid{}?page=1&page=2&types=vrf&types=&types=public_ipv4&exclude=a,b&exclude=c",
                path_of(op)
            ))
            .header("x-auth-token", TOKEN)
            .build()
            .unwrap();
        use metal_api::Exchange;
        fake.exchange(op, request).await.unwrap().json().await.unwrap()
    });
    assert_eq!(
        body,
        json!({"page": "2", "types": "vrf,public_ipv4", "exclude": ["c"]})
    );
}
