//! A connection's or virtual circuit's speed as clients send it: a
//! number of bits per second (packngo), or text such as `50Mbps` or
//! `10Gbps` (the spec's inputs, the Terraform provider, metal-cli).

use serde_json::Value;

use crate::call::ApiError;

const MEGA: u64 = 1_000_000;
const GIGA: u64 = 1_000 * MEGA;

/// The speeds of a shared connection.
pub(crate) const SHARED_SPEEDS: &[u64] = &[
    50 * MEGA,
    200 * MEGA,
    500 * MEGA,
    GIGA,
    2 * GIGA,
    5 * GIGA,
    10 * GIGA,
];

/// The speeds of a dedicated port: the shared speeds and 100 Gbps. Both
/// Terraform providers' dedicated connection tests create one at
/// `50Mbps` (terraform-provider-equinix v4.16.1
/// `internal/resources/metal/connection/resource_test.go`,
/// terraform-provider-metal `TestAccMetalConnection_Dedicated`), and the
/// older provider's speed table (`resource_metal_connection.go`) sends
/// 50, 200, 500 Mbps, 1, 2, 5 or 10 Gbps for every type; 100 Gbps as the
/// newer one's `speed_test.go` reads it.
pub(crate) const DEDICATED_SPEEDS: &[u64] = &[
    50 * MEGA,
    200 * MEGA,
    500 * MEGA,
    GIGA,
    2 * GIGA,
    5 * GIGA,
    10 * GIGA,
    100 * GIGA,
];

/// `speed` in bits per second: a number, digits, or digits with `Mbps`
/// or `Gbps`; `None` when absent (or empty text); `422` otherwise.
pub(crate) fn parse_speed(speed: Option<&Value>) -> Result<Option<u64>, ApiError> {
    let bad = || {
        ApiError::unprocessable(
            "Speed must be a number of bits per second, or a speed such as 50Mbps or 10Gbps",
        )
    };
    match speed {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n.as_u64().map(Some).ok_or_else(bad),
        Some(Value::String(s)) if s.trim().is_empty() => Ok(None),
        Some(Value::String(s)) => {
            let s = s.trim();
            let (digits, unit) = match s.len().checked_sub(4).map(|i| s.split_at(i)) {
                Some((d, u)) if u.eq_ignore_ascii_case("mbps") => (d, MEGA),
                Some((d, u)) if u.eq_ignore_ascii_case("gbps") => (d, GIGA),
                _ => (s, 1),
            };
            digits
                .parse::<u64>()
                .ok()
                .and_then(|n| n.checked_mul(unit))
                .map(Some)
                .ok_or_else(bad)
        }
        Some(_) => Err(bad()),
    }
}

/// `bps` as the API's inputs spell it (`50Mbps`, `10Gbps`).
pub(crate) fn speed_text(bps: u64) -> String {
    if bps >= GIGA && bps.is_multiple_of(GIGA) {
        format!("{}Gbps", bps / GIGA)
    } else if bps.is_multiple_of(MEGA) {
        format!("{}Mbps", bps / MEGA)
    } else {
        format!("{bps}bps")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn speeds_read_as_numbers_digits_or_units() {
        let read = |v: Value| parse_speed(Some(&v));
        assert_eq!(read(json!(50_000_000)), Ok(Some(50 * MEGA)));
        assert_eq!(read(json!("50Mbps")), Ok(Some(50 * MEGA)));
        assert_eq!(read(json!("10gbps")), Ok(Some(10 * GIGA)));
        assert_eq!(read(json!("1000000000")), Ok(Some(GIGA)));
        assert_eq!(read(json!("")), Ok(None));
        assert_eq!(parse_speed(None), Ok(None));
        for bad in [json!("fast"), json!("5Tbps"), json!(-1), json!(true)] {
            assert_eq!(read(bad.clone()).map_err(|e| e.status), Err(422), "{bad}");
        }
        assert_eq!(speed_text(10 * GIGA), "10Gbps");
        assert_eq!(speed_text(200 * MEGA), "200Mbps");
    }
}
