//! The control API's JSON: faults as scripted over HTTP (converted to the
//! in-process [`Fault`] and [`RandomFaults`], same kinds and targeting),
//! recorded calls, the clock, and the summary of a world.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::document::{seconds, WorldDoc};
use crate::faults::{Fault, FaultKind, RandomFaults};
use crate::log::CallRecord;

/// `POST /_fake/faults`: scripted faults, and random ones.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FaultsRequest {
    #[serde(default)]
    pub(super) faults: Vec<FaultSpec>,
    #[serde(default)]
    pub(super) random: Option<RandomSpec>,
}

/// The kinds, by [`FaultKind::label`].
#[derive(Clone, Copy, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub(super) enum KindName {
    NotSent,
    FailBefore,
    FailAfter,
    Throttle,
    Latency,
    DropAfter,
    Hang,
    BadGateway,
    Truncated,
    Competitor,
}

/// One scripted fault: which calls ([`Fault::on`] or [`Fault::any`],
/// [`Fault::target`], [`Fault::nth`], [`Fault::times`]) and what happens
/// to them.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FaultSpec {
    /// The operationId; absent: any operation.
    operation: Option<String>,
    /// Only calls whose path names this ID ([`Fault::target`]).
    target: Option<Uuid>,
    /// Only the nth call (1-based) of the operation (of all, without one).
    nth: Option<u64>,
    /// How many matching calls in a row (default 1).
    times: Option<u32>,
    kind: KindName,
    status: Option<u16>,
    retry_after_seconds: Option<f64>,
    seconds: Option<f64>,
}

/// Random faults: [`RandomFaults`].
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RandomSpec {
    rate: f64,
    #[serde(default)]
    seed: u64,
    /// The kinds, as in a scripted fault without `operation`, `target`,
    /// `nth` or `times`.
    #[serde(default)]
    kinds: Vec<FaultSpec>,
}

/// The kind and its parameters (status, retry_after_seconds, seconds).
fn kind_of(p: &FaultSpec) -> Result<FaultKind, String> {
    let kind = p.kind;
    let wants_status = matches!(kind, KindName::FailBefore | KindName::FailAfter);
    if p.status.is_some() && !wants_status {
        return Err("status applies to fail_before and fail_after only".to_string());
    }
    if p.retry_after_seconds.is_some() && kind != KindName::Throttle {
        return Err("retry_after_seconds applies to throttle only".to_string());
    }
    if p.seconds.is_some() && kind != KindName::Latency {
        return Err("seconds applies to latency only".to_string());
    }
    let status = || -> Result<u16, String> {
        match p.status {
            Some(s) if (400..=599).contains(&s) => Ok(s),
            Some(s) => Err(format!("status {s} is not an error status (400 to 599)")),
            None => Err("fail_before and fail_after need a status".to_string()),
        }
    };
    let secs = |field: &'static str, v: f64| -> Result<Duration, String> {
        seconds(field, "the fault", v).map_err(|e| e.to_string())
    };
    Ok(match kind {
        KindName::NotSent => FaultKind::NotSent,
        KindName::FailBefore => FaultKind::FailBefore { status: status()? },
        KindName::FailAfter => FaultKind::FailAfter { status: status()? },
        KindName::Throttle => FaultKind::Throttle {
            retry_after: secs("retry_after_seconds", p.retry_after_seconds.unwrap_or(1.0))?,
        },
        KindName::Latency => match p.seconds {
            Some(s) => FaultKind::Latency(secs("seconds", s)?),
            None => return Err("latency needs seconds".to_string()),
        },
        KindName::DropAfter => FaultKind::DropAfter,
        KindName::Hang => FaultKind::Hang,
        KindName::BadGateway => FaultKind::BadGateway,
        KindName::Truncated => FaultKind::Truncated,
        KindName::Competitor => FaultKind::Competitor,
    })
}

impl FaultSpec {
    /// The in-process fault, or why it is refused.
    pub(super) fn to_fault(&self) -> Result<Fault, String> {
        let kind = kind_of(self)?;
        let mut fault = match &self.operation {
            Some(op) if metal_api::operation::find(op).is_some() => Fault::on(op.clone(), kind),
            Some(op) => return Err(format!("{op:?} is not an operationId of the spec")),
            None => Fault::any(kind),
        };
        if let Some(id) = self.target {
            fault = fault.target(id);
        }
        if let Some(n) = self.nth {
            if n == 0 {
                return Err("nth counts from 1".to_string());
            }
            fault = fault.nth(n);
        }
        match self.times {
            Some(0) => return Err("times must be at least 1".to_string()),
            Some(t) => fault = fault.times(t),
            None => {}
        }
        Ok(fault)
    }
}

impl RandomSpec {
    /// The in-process random faults, or why they are refused.
    pub(super) fn to_random(&self) -> Result<RandomFaults, String> {
        if !(0.0..=1.0).contains(&self.rate) {
            return Err(format!("rate {} is not a probability in [0, 1]", self.rate));
        }
        let kinds = self
            .kinds
            .iter()
            .map(|k| {
                if k.operation.is_some()
                    || k.target.is_some()
                    || k.nth.is_some()
                    || k.times.is_some()
                {
                    return Err("random kinds take no operation, target, nth or times".to_string());
                }
                kind_of(k)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(RandomFaults {
            rate: self.rate,
            seed: self.seed,
            kinds,
        })
    }
}

/// One recorded call, as `GET /_fake/calls` lists it.
#[derive(Debug, Serialize)]
pub(super) struct CallJson {
    pub(super) seq: u64,
    pub(super) operation: &'static str,
    /// `null` when no reply was sent.
    pub(super) status: Option<u16>,
    pub(super) fault: Option<&'static str>,
    /// When it arrived, on the fake's clock (RFC 3339).
    pub(super) at: String,
}

impl CallJson {
    pub(super) fn of(c: CallRecord, at: String) -> Self {
        Self {
            seq: c.seq,
            operation: c.operation,
            status: c.status,
            fault: c.fault,
            at,
        }
    }
}

/// `POST /_fake/clock`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ClockRequest {
    pub(super) advance_seconds: f64,
}

/// The clock, as `GET`/`POST /_fake/clock` answer.
#[derive(Debug, Serialize)]
pub(super) struct ClockJson {
    /// Now on the fake's clock (RFC 3339).
    pub(super) now: String,
    /// The total advance, in seconds.
    pub(super) advanced_seconds: f64,
    /// How much faster than real time it runs.
    pub(super) time_scale: f64,
}

/// How many records of each kind a world has (the reply of a reset or a
/// load).
#[derive(Debug, Serialize)]
pub(super) struct Summary {
    pub(super) main_project: Option<uuid::Uuid>,
    pub(super) organizations: usize,
    pub(super) projects: usize,
    pub(super) tokens: usize,
    pub(super) reservations: usize,
    pub(super) devices: usize,
    pub(super) ssh_keys: usize,
}

impl Summary {
    pub(super) fn of(doc: &WorldDoc) -> Self {
        Self {
            main_project: doc.projects.first().map(|p| p.id),
            organizations: doc.organizations.len(),
            projects: doc.projects.len(),
            tokens: doc.tokens.len(),
            reservations: doc.reservations.len(),
            devices: doc.devices.len(),
            ssh_keys: doc.ssh_keys.len(),
        }
    }
}
