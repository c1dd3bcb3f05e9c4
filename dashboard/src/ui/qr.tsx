// A QR code of a text (the otpauth:// URL of a new two-factor secret) for a phone to scan. qrcode
// (soldair/node-qrcode: the most used QR encoder on npm, maintained, no dependencies in the browser
// build) renders it as SVG text in the page: no canvas, no network call, so the secret never leaves
// the browser, and the image is a data: URL the dashboard's CSP already allows.
import { useEffect, useState } from 'react';
import QRCode from 'qrcode';
import { QR_OPTIONS } from './qr-options';

export function QrCode({ text, label }: { text: string; label: string }) {
  const [svg, setSvg] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    void QRCode.toString(text, QR_OPTIONS).then((made) => current && setSvg(made));
    return () => {
      current = false;
    };
  }, [text]);
  if (!svg) return null;
  return <img className="qr" src={`data:image/svg+xml;utf8,${encodeURIComponent(svg)}`} alt={label} width={200} height={200} />;
}
