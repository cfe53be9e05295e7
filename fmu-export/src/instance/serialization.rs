//! The byte format of serialized FMU states, version 3 (all numbers little-endian):
//!
//! ```text
//! magic "TANDEMFS" | u32 format version | u32 token length, token bytes (the model's
//! instantiation token) | u8 kind | u8 mode | u8 flags (bit 0 integrator ready, bit 1 next
//! time event, bit 2 stop time, bit 3 tolerance) | f64 t, start, stop, tolerance,
//! last successful time, next time event | vectors x, u, p, d, z_ref (u64 length + f64s) |
//! String parameters (u64 count, each u64 length + UTF-8 bytes) |
//! u64 number of input-derivative orders, each a vector | integrator state vector |
//! sensitivity vector (`dw/dp`, empty without declared sensitivities) |
//! u64 FNV-1a checksum of everything before it
//! ```
//!
//! Version 2 added the sensitivity vector, version 3 the String parameters; older states are
//! rejected with their version.
//!
//! Decoding checks every field against the model (token, kind, dimensions, finiteness) and
//! rejects anything else with an Error: foreign or corrupted bytes never reach the instance.

use crate::instance::dynamic::DynamicState;
use crate::instance::lifecycle::{ExperimentSetup, Kind, Mode};
use crate::instance::outcome::{Outcome, Problem};
use crate::instance::snapshot::Snapshot;

const MAGIC: &[u8; 8] = b"TANDEMFS";
const VERSION: u32 = 3;
const INTEGRATOR_READY: u8 = 1;
const HAS_NEXT_EVENT: u8 = 2;
const HAS_STOP: u8 = 4;
const HAS_TOLERANCE: u8 = 8;

/// What a serialized state of one model and interface must contain.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    token: String,
    kind: Kind,
    states: usize,
    inputs: usize,
    parameters: usize,
    discrete: usize,
    strings: usize,
    indicators: usize,
    input_orders: usize,
}

impl Layout {
    /// The layout of `kind` instances of the model with instantiation token `token`, whose
    /// dimensions are those of `template`.
    pub fn of(token: &str, kind: Kind, template: &DynamicState) -> Self {
        Layout {
            token: token.to_owned(),
            kind,
            states: template.x.len(),
            inputs: template.u.len(),
            parameters: template.p.len(),
            discrete: template.d.len(),
            strings: template.s.len(),
            indicators: template.z_ref.len(),
            input_orders: template.input_derivatives.len(),
        }
    }
}

/// The bytes of `snapshot`.
pub fn encode(snapshot: &Snapshot, layout: &Layout) -> Vec<u8> {
    let s = &snapshot.dynamic;
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.extend_from_slice(&(layout.token.len() as u32).to_le_bytes());
    out.extend_from_slice(layout.token.as_bytes());
    out.push(kind_code(snapshot.kind));
    out.push(s.mode.code());
    let flags = [
        (s.integrator_ready, INTEGRATOR_READY),
        (s.next_time_event.is_some(), HAS_NEXT_EVENT),
        (s.experiment.stop.is_some(), HAS_STOP),
        (s.experiment.tolerance.is_some(), HAS_TOLERANCE),
    ]
    .iter()
    .filter(|(on, _)| *on)
    .fold(0u8, |acc, (_, bit)| acc | bit);
    out.push(flags);
    for v in [
        s.t,
        s.experiment.start,
        s.experiment.stop.unwrap_or(0.0),
        s.experiment.tolerance.unwrap_or(0.0),
        s.last_successful_time,
        s.next_time_event.unwrap_or(0.0),
    ] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    for v in [&s.x, &s.u, &s.p, &s.d, &s.z_ref] {
        put_vec(&mut out, v);
    }
    out.extend_from_slice(&(s.s.len() as u64).to_le_bytes());
    for text in &s.s {
        out.extend_from_slice(&(text.len() as u64).to_le_bytes());
        out.extend_from_slice(text.as_bytes());
    }
    out.extend_from_slice(&(s.input_derivatives.len() as u64).to_le_bytes());
    for v in &s.input_derivatives {
        put_vec(&mut out, v);
    }
    put_vec(&mut out, &snapshot.integrator);
    put_vec(&mut out, &s.sensitivities);
    let checksum = fnv1a(&out);
    out.extend_from_slice(&checksum.to_le_bytes());
    out
}

/// The snapshot in `bytes`, checked against `layout`.
pub fn decode(bytes: &[u8], layout: &Layout) -> Outcome<Snapshot> {
    let reject =
        |why: &str| Problem::error(format!("not a serialized FMU state of this model: {why}"));
    if bytes.len() < MAGIC.len() + 4 + 8 || &bytes[..MAGIC.len()] != MAGIC {
        return Err(reject(
            "the bytes do not start with the Tandem FMU-state marker",
        ));
    }
    let (body, tail) = bytes.split_at(bytes.len() - 8);
    if fnv1a(body).to_le_bytes() != tail {
        return Err(reject("checksum mismatch (corrupted or truncated)"));
    }
    let mut r = Reader {
        bytes: body,
        pos: MAGIC.len(),
    };
    let version = r.u32()?;
    if version != VERSION {
        return Err(reject(&format!(
            "format version {version}, this FMU reads version {VERSION}"
        )));
    }
    let token_len = r.u32()? as usize;
    if r.take(token_len)? != layout.token.as_bytes() {
        return Err(reject(
            "it was saved by a different model (instantiation token differs)",
        ));
    }
    let kind = match r.u8()? {
        0 => Kind::ModelExchange,
        1 => Kind::CoSimulation,
        k => return Err(reject(&format!("unknown interface code {k}"))),
    };
    if kind != layout.kind {
        return Err(reject(&format!(
            "it is a {} state, this instance is {}",
            kind.name(),
            layout.kind.name()
        )));
    }
    let mode = match Mode::from_code(r.u8()?) {
        Some(Mode::Failed) | None => return Err(reject("invalid instance mode")),
        Some(mode) => mode,
    };
    let flags = r.u8()?;
    if flags & !(INTEGRATOR_READY | HAS_NEXT_EVENT | HAS_STOP | HAS_TOLERANCE) != 0 {
        return Err(reject(&format!("unknown flags {flags:#04x}")));
    }
    let [t, start, stop, tolerance, last_successful_time, next_event] = [(); 6].map(|_| r.f64());
    let (t, start, last_successful_time) = (t?, start?, last_successful_time?);
    let optional =
        |bit: u8, v: Outcome<f64>| -> Outcome<Option<f64>> { Ok((flags & bit != 0).then_some(v?)) };
    let (stop, tolerance) = (
        optional(HAS_STOP, stop)?,
        optional(HAS_TOLERANCE, tolerance)?,
    );
    let next_time_event = optional(HAS_NEXT_EVENT, next_event)?;
    let times = [
        Some(t),
        Some(start),
        Some(last_successful_time),
        stop,
        tolerance,
        next_time_event,
    ];
    if times.iter().flatten().any(|v| !v.is_finite()) {
        return Err(reject("a time is not finite"));
    }
    let x = r.finite_vec(Some(layout.states), "continuous states")?;
    let u = r.finite_vec(Some(layout.inputs), "inputs")?;
    let p = r.finite_vec(Some(layout.parameters), "parameters")?;
    let d = r.finite_vec(Some(layout.discrete), "discrete variables")?;
    let z_ref = r.finite_vec(Some(layout.indicators), "event indicators")?;
    let strings = r.u64()?;
    if strings != layout.strings as u64 {
        return Err(reject(&format!(
            "{strings} String parameters, expected {}",
            layout.strings
        )));
    }
    let s = (0..layout.strings)
        .map(|_| r.text())
        .collect::<Outcome<Vec<_>>>()?;
    let orders = r.u64()?;
    if orders != layout.input_orders as u64 {
        return Err(reject(&format!(
            "{orders} input-derivative orders, expected {}",
            layout.input_orders
        )));
    }
    let input_derivatives = (0..layout.input_orders)
        .map(|_| r.finite_vec(Some(layout.inputs), "input derivatives"))
        .collect::<Outcome<Vec<_>>>()?;
    let integrator = r.finite_vec(None, "integrator state")?;
    let sensitivities = r.finite_vec(None, "sensitivities")?;
    if r.pos != body.len() {
        return Err(reject(&format!(
            "{} unexpected bytes after the sensitivities",
            body.len() - r.pos
        )));
    }
    let integrator_ready = flags & INTEGRATOR_READY != 0;
    let without_integrator = !integrator.is_empty() || !sensitivities.is_empty();
    if integrator_ready && kind != Kind::CoSimulation || !integrator_ready && without_integrator {
        return Err(reject("integrator state inconsistent with the interface"));
    }
    let dynamic = DynamicState {
        mode,
        t,
        x,
        u,
        input_derivatives,
        p,
        d,
        s,
        z_ref,
        next_time_event,
        experiment: ExperimentSetup {
            start,
            stop,
            tolerance,
        },
        last_successful_time,
        integrator_ready,
        sensitivities,
    };
    Ok(Snapshot {
        kind,
        dynamic,
        integrator,
    })
}

fn kind_code(kind: Kind) -> u8 {
    match kind {
        Kind::ModelExchange => 0,
        Kind::CoSimulation => 1,
    }
}

fn put_vec(out: &mut Vec<u8>, values: &[f64]) {
    out.extend_from_slice(&(values.len() as u64).to_le_bytes());
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A bounds-checked cursor over the serialized bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Outcome<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|&end| end <= self.bytes.len()).ok_or_else(|| {
            Problem::error(format!(
                "not a serialized FMU state of this model: truncated ({n} bytes needed at offset {})",
                self.pos
            ))
        })?;
        let slice = &self.bytes[self.pos..end];
        self.pos = end;
        Ok(slice)
    }

    fn array<const N: usize>(&mut self) -> Outcome<[u8; N]> {
        Ok(self.take(N)?.try_into().expect("take returns N bytes"))
    }

    fn u8(&mut self) -> Outcome<u8> {
        Ok(self.array::<1>()?[0])
    }

    fn u32(&mut self) -> Outcome<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Outcome<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    fn f64(&mut self) -> Outcome<f64> {
        Ok(f64::from_le_bytes(self.array()?))
    }

    /// A length-prefixed UTF-8 text without NUL bytes (a String parameter's value).
    fn text(&mut self) -> Outcome<String> {
        let len = self.u64()?;
        let bytes = self.take(usize::try_from(len).unwrap_or(usize::MAX))?;
        match std::str::from_utf8(bytes) {
            Ok(text) if !text.contains('\0') => Ok(text.to_owned()),
            _ => Err(Problem::error(
                "not a serialized FMU state of this model: a String parameter is not UTF-8 text without NUL bytes",
            )),
        }
    }

    /// A length-prefixed vector of finite entries (exactly `expected` of them, if given).
    fn finite_vec(&mut self, expected: Option<usize>, what: &str) -> Outcome<Vec<f64>> {
        let len = self.u64()?;
        if let Some(expected) = expected.filter(|&e| e as u64 != len) {
            return Err(Problem::error(format!(
                "not a serialized FMU state of this model: {len} {what}, expected {expected}"
            )));
        }
        let n_bytes = usize::try_from(len)
            .ok()
            .and_then(|n| n.checked_mul(8))
            .ok_or_else(|| {
                Problem::error(format!(
                    "not a serialized FMU state of this model: {len} {what} is too many"
                ))
            })?;
        let bytes = self.take(n_bytes)?;
        let values: Vec<f64> = bytes
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().expect("8-byte chunk")))
            .collect();
        if values.iter().any(|v| !v.is_finite()) {
            return Err(Problem::error(format!(
                "not a serialized FMU state of this model: non-finite {what}"
            )));
        }
        Ok(values)
    }
}
