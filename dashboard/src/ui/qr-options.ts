// How the dashboard draws a QR code; the browser test renders the same text with these to compare.
export const QR_OPTIONS = { type: 'svg', errorCorrectionLevel: 'M', margin: 2 } as const;
