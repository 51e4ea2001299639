//! Reading one gauge from a Prometheus registry: the soak's controllers
//! report their `equinix_api_in_flight` and `equinix_api_waiting`, and the
//! property tests check them after every step.

/// A gauge's value (`NaN` if it is not registered).
pub fn gauge(registry: &prometheus::Registry, name: &str) -> f64 {
    registry
        .gather()
        .iter()
        .find(|f| f.name() == name)
        .and_then(|f| f.get_metric().first().map(|m| m.get_gauge().get_value()))
        .unwrap_or(f64::NAN)
}
