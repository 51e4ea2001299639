//! What a resource's folder gives the fake: its operations (each a
//! function that reads a [`Call`] and returns what it will do to the
//! world), who owns each of its things (for access), and how its records
//! load from and save to a world document. [`super::resources`] lists
//! every folder's [`Resource`]; the operations the fake models are the
//! union of their tables.

use metal_api::operation::Operation;
use tokio::time::Instant;
use uuid::Uuid;

use super::access::Owner;
use super::render::Expand;
use super::World;
use crate::call::{ApiError, Call, Reply};
use crate::coverage::Unread;
use crate::document::{WorldDoc, WorldError};

/// What one call does to the world at an instant, and its reply.
pub(crate) type Act =
    Box<dyn FnOnce(&mut World, &Scope, Instant) -> Result<Reply, ApiError> + Send>;

/// What another API user does to the world just before a call acts,
/// when a [`crate::FaultKind::Competitor`] fault strikes it (a device
/// create's competitor takes the reservation it asks for). Each resource
/// says what racing it means; the pipeline only runs it.
pub(crate) type Race = Box<dyn FnOnce(&mut World, Instant) + Send>;

/// A call of a modelled operation, read and ready to act.
pub(crate) struct Prepared {
    /// The change and the reply.
    pub(crate) act: Act,
    /// What a competitor does first, for a call that can be raced.
    pub(crate) race: Option<Race>,
}

/// What the caller of one call sees, as an act reads it.
pub(crate) type Scope = super::access::Access;

/// Reads one call of a modelled operation: a malformed request is refused
/// here (404, 422), before any fault is drawn or anything changes.
pub(crate) type Prepare = fn(&Call) -> Result<Prepared, ApiError>;

/// What an operation's path names, for access: declared with the
/// operation, never guessed from the path.
#[derive(Clone, Copy)]
pub(crate) enum Target {
    /// Nothing: the operation reads or makes only what is the caller's
    /// own (lists cut to what its token sees, the current user, the
    /// catalog, a create at the root).
    Caller,
    /// The thing the path parameter `param` names, owned as `of`'s
    /// `owner` says (`/projects/{id}/ips` names a project).
    Param {
        param: &'static str,
        of: &'static Resource,
    },
}

/// One operation a resource models.
pub(crate) struct Modelled {
    /// The spec's operation (its operationId, method, path and success
    /// status come from [`metal_api::operation`], never from here).
    pub(crate) operation: &'static Operation,
    /// How a call of it is read.
    pub(crate) prepare: Prepare,
    /// Also served for `PATCH` on its path, where a client sends `PATCH`
    /// though the spec says `PUT`.
    pub(crate) also_patch: bool,
    /// What its path names. An operation whose path has a parameter and
    /// declares no [`Target::Param`] is refused to every token of the
    /// world (`403`), and a test fails it.
    pub(crate) target: Target,
    /// The query parameters of the spec's operation that `prepare` does
    /// not read, each with why ([`Unread`]). Every other parameter of the
    /// spec's is read, and the coverage test (`coverage::table`) fails
    /// an operation that leaves one neither read nor declared here, or
    /// that reads one declared here.
    pub(crate) unread: &'static [Unread],
}

impl Modelled {
    /// `operation`, read by `prepare`, naming nothing in its path
    /// ([`Target::Caller`]; see [`Modelled::names`]).
    pub(crate) const fn new(operation: &'static Operation, prepare: Prepare) -> Self {
        Self {
            operation,
            prepare,
            also_patch: false,
            target: Target::Caller,
            unread: &[],
        }
    }

    /// The spec's query parameters it does not read, and why.
    pub(crate) const fn unread(mut self, unread: &'static [Unread]) -> Self {
        self.unread = unread;
        self
    }

    /// Its path's `param` names a thing of `of`.
    pub(crate) const fn names(mut self, param: &'static str, of: &'static Resource) -> Self {
        self.target = Target::Param { param, of };
        self
    }

    /// Also served for `PATCH`.
    pub(crate) const fn also_patch(mut self) -> Self {
        self.also_patch = true;
        self
    }
}

/// One resource: a folder under `model/`.
pub(crate) struct Resource {
    /// The first segment of the paths whose `{id}` names one of its
    /// things (`devices` for `/devices/{id}/actions`), by which access
    /// finds its owner.
    pub(crate) collection: &'static str,
    /// The operations it models.
    pub(crate) operations: &'static [Modelled],
    /// Who owns the thing with this ID (`None`: no such thing).
    pub(crate) owner: fn(&World, Uuid) -> Option<Owner>,
    /// Loads its records from a world document.
    pub(crate) load: fn(&mut World, &WorldDoc, Instant) -> Result<(), WorldError>,
    /// Saves its records into a world document.
    pub(crate) save: fn(&World, &mut WorldDoc, Instant),
}

/// A change that no competitor races.
pub(crate) fn acts(
    act: impl FnOnce(&mut World, &Scope, Instant) -> Result<Reply, ApiError> + Send + 'static,
) -> Result<Prepared, ApiError> {
    Ok(Prepared {
        act: Box::new(act),
        race: None,
    })
}

/// `include` and `exclude` of the query.
pub(crate) fn expand(call: &Call) -> Expand {
    Expand::parse(
        call.text("include").as_deref(),
        call.text("exclude").as_deref(),
    )
}
