/// The spherical Earth model every part of rotate uses.
///
/// rotate treats the Earth as a sphere of the IUGG mean radius R1 = 6,371,008.8 m
/// (Moritz, "Geodetic Reference System 1980", Bulletin Géodésique 54, 1980). Against the WGS 84
/// ellipsoid a spherical great-circle distance is off by at most about 0.5 %, which is far below
/// GPS noise at geofence scales; what matters for rotate is that *one* constant is used
/// everywhere, so that rankings, radii and margins agree with each other exactly.
public enum Earth {
    /// Mean Earth radius in meters (IUGG R1).
    public static let meanRadiusMeters: Double = 6_371_008.8

    /// Half the circumference: the largest possible great-circle distance, `π · R`, in meters.
    public static let halfCircumferenceMeters: Double = Double.pi * meanRadiusMeters
}
