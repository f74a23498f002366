// The daemon passes secrets in and out as `SecureBytes` and configures `KDFCost`;
// re-exporting the crypto layer spares it a direct dependency on WidgetCrypto.
@_exported import WidgetCrypto
