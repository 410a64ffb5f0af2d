use crate::geo::Point;

pub fn paint() {
    super::helper();
    crate::geo::Point::new();
    let p = Point::new().unwrap_or_default();
    p.norm();
}
