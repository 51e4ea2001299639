//! The filters of `findProjectDevices`, and the page they select.

use tokio::time::Instant;
use uuid::Uuid;

use super::own_addresses::address_texts;
use super::record::Kept;
use super::view::DeviceView;
use crate::call::{ApiError, Call};
use crate::model::list::{categories, flag, plan_in_categories, Listing, Page};
use crate::model::render::{contains_ignoring_case, ShortId};
use crate::model::World;

/// The filters of `findProjectDevices`.
#[derive(Clone, Debug, Default)]
pub(crate) struct DeviceFilter {
    hostname: Option<String>,
    tag: Option<String>,
    search: Option<String>,
    state: Option<String>,
    reserved: Option<bool>,
    type_: Option<String>,
    metro: Option<String>,
    facility: Option<String>,
    has_termination_time: Option<bool>,
    mac_address: Option<String>,
    /// Whether the device's plan is in the categories asked for.
    in_categories: bool,
}

impl DeviceFilter {
    /// The query parameters read here, in the order hrefs echo them.
    pub(crate) const PARAMS: &'static [&'static str] = &[
        "hostname",
        "tag",
        "search",
        "state",
        "reserved",
        "type",
        "metro",
        "facility",
        "has_termination_time",
        "mac_address",
        "categories",
    ];

    /// Reads the filters of a call; a malformed boolean, or a category
    /// outside the spec's, is `422`.
    pub(crate) fn of(call: &Call) -> Result<Self, ApiError> {
        Ok(Self {
            hostname: call.text("hostname"),
            tag: call.text("tag"),
            search: call.text("search"),
            state: call.text("state"),
            reserved: flag(call, "reserved")?,
            type_: call.text("type"),
            metro: call.text("metro"),
            facility: call.text("facility"),
            has_termination_time: flag(call, "has_termination_time")?,
            mac_address: call.text("mac_address"),
            in_categories: plan_in_categories(&categories(call, "categories")?),
        })
    }
}

impl World {
    /// One page of a project's devices that pass `filter`, oldest first.
    pub(crate) fn device_page<'a>(
        &'a self,
        project: Uuid,
        filter: &DeviceFilter,
        listing: &Listing,
        now: Instant,
    ) -> Result<Page<DeviceView<'a>>, ApiError> {
        let recs = self
            .devices
            .of_project(Some(project))
            .filter(|d| self.device_passes(d, filter));
        self.page_of(
            project,
            ("devices", "devices"),
            recs,
            |d| d.meta.seq,
            listing,
            |d| self.device_view(d, &listing.expand, now),
        )
    }

    /// Whether `d` passes `f`.
    pub(crate) fn device_passes(&self, d: &Kept, f: &DeviceFilter) -> bool {
        let rec = &d.rec;
        let facility = self.catalog.facility(&rec.facility);
        let reserved = rec.reservation.is_some();
        let state = d.state();
        let search = || {
            let Some(text) = &f.search else { return true };
            let has = |field: &str| contains_ignoring_case(field, text);
            has(&rec.hostname)
                || has(&ShortId(rec.id).to_string())
                || has(&rec.plan)
                || has(&rec.facility)
                || has(&format!("Facility {}", rec.facility))
                || has(&rec.operating_system)
                || rec.description.as_deref().is_some_and(has)
                || rec
                    .reservation
                    .is_some_and(|r| has(&ShortId(r).to_string()))
                || rec.tags.iter().any(|t| has(t))
                // Its IP addresses, once it has them.
                || (state.has_addresses() && address_texts(d).any(|a| has(&a)))
        };
        let named = |value: &Option<String>, code: &str, id: Option<Uuid>| {
            value.as_ref().is_none_or(|v| {
                v.eq_ignore_ascii_case(code) || id.is_some_and(|id| *v == id.to_string())
            })
        };
        let (metro, metro_id, facility_id) = match facility {
            Some(fac) => (
                fac.metro.as_str(),
                Some(self.catalog.metro_id_of(fac)),
                fac.id,
            ),
            None => ("", None, None),
        };
        f.hostname
            .as_ref()
            .is_none_or(|h| contains_ignoring_case(&rec.hostname, h))
            && f.tag.as_ref().is_none_or(|t| rec.tags.contains(t))
            && f.state.as_deref().is_none_or(|s| s == state.as_str())
            && f.reserved.is_none_or(|r| r == reserved)
            && f.type_.as_deref().is_none_or(|t| match t {
                "reserved" => reserved,
                "ondemand" => !reserved && !rec.spot_instance,
                "spot" => rec.spot_instance,
                // An unknown type matches nothing.
                _ => false,
            })
            && named(&f.metro, metro, metro_id)
            && named(&f.facility, &rec.facility, facility_id)
            && f
                .has_termination_time
                .is_none_or(|t| t == rec.termination_time.is_some())
            // Any of its ports' MAC addresses, ASCII case ignored.
            && f.mac_address.as_ref().is_none_or(|m| {
                crate::model::port::macs_of(&rec.plan, d.meta.seq)
                    .any(|x| x.to_string().eq_ignore_ascii_case(m))
            })
            && f.in_categories
            && search()
    }
}
