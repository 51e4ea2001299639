//! A self-service reservation as the API sends it, written straight to
//! bytes: each item with its plan whole and its metro's code, ID and name.

use serde::Serialize;
use uuid::Uuid;

use super::record::{Kept, Period, ReservationItem};
use crate::model::catalog::PlanView;
use crate::model::render::Stamp;
use crate::model::World;

/// A self-service reservation in a reply.
#[derive(Serialize)]
pub(crate) struct ReservationView<'a> {
    id: Uuid,
    created_at: Stamp,
    item: Vec<ItemView<'a>>,
    /// `""` when none was given.
    notes: &'a str,
    organization: &'a str,
    organization_id: Uuid,
    period: &'a Period,
    project: &'a str,
    project_id: Uuid,
    /// As given, else when it was made.
    start_date: Stamp,
    /// Every reservation of the fake waits for Metal's approval.
    status: &'static str,
    total_cost: i64,
}

/// One item in a reply.
#[derive(Serialize)]
struct ItemView<'a> {
    id: String,
    amount: f64,
    metro_code: &'a str,
    metro_id: Uuid,
    metro_name: &'a str,
    plan: PlanView<'a>,
    plan_categories: [&'static str; 1],
    plan_id: Uuid,
    plan_name: &'a str,
    plan_slug: &'a str,
    quantity: u32,
    /// `""` when none was given.
    term: &'a str,
}

/// A list of self-service reservations.
#[derive(Serialize)]
pub(crate) struct ReservationList<'a> {
    pub(crate) reservations: Vec<ReservationView<'a>>,
}

/// The status of a reservation the fake made. **Thin**: the real values
/// are not public beyond the field.
const PENDING: &str = "pending";

impl World {
    fn item_view<'a>(&'a self, i: &'a ReservationItem) -> ItemView<'a> {
        let metro = self.catalog.metro(&i.metro);
        let plan = self.catalog.plan(&i.plan);
        ItemView {
            id: i.id.to_string(),
            amount: self.item_amount(i),
            metro_code: &i.metro,
            metro_id: metro.and_then(|m| m.id).unwrap_or_default(),
            metro_name: metro.and_then(|m| m.name.as_deref()).unwrap_or(&i.metro),
            plan: self.plan_view(&i.plan),
            // Every plan of the fake's catalog is a compute plan.
            plan_categories: ["compute"],
            plan_id: plan.and_then(|p| p.id).unwrap_or_default(),
            plan_name: plan.and_then(|p| p.name.as_deref()).unwrap_or(&i.plan),
            plan_slug: &i.plan,
            quantity: i.quantity,
            term: i.term.as_deref().unwrap_or_default(),
        }
    }

    /// `r` as the API shows it.
    pub(crate) fn self_service_view<'a>(&'a self, r: &'a Kept) -> ReservationView<'a> {
        let rec = &r.rec;
        let project = self.projects.get(&rec.project);
        let organization_id = project.and_then(|p| p.rec.organization).unwrap_or_default();
        let organization = self
            .organizations
            .get(&organization_id)
            .map(|o| o.rec.name.as_str())
            .unwrap_or_default();
        let created = self.clock.wall(r.meta.created);
        ReservationView {
            id: rec.id,
            created_at: Stamp(created),
            item: rec.items.iter().map(|i| self.item_view(i)).collect(),
            notes: rec.notes.as_deref().unwrap_or_default(),
            organization,
            organization_id,
            period: &rec.period,
            project: project.map(|p| p.name()).unwrap_or_default(),
            project_id: rec.project,
            start_date: Stamp(rec.start_date.unwrap_or(created)),
            status: PENDING,
            total_cost: self.reservation_total(rec),
        }
    }
}
