// Proves the reports' text cells are made inert for a spreadsheet (OWASP "CSV injection"): text that starts with =, +, -, @, a tab or a carriage return gets a leading apostrophe, each one of them on its own; other text, an apostrophe already there and an empty cell pass as they are.
import { textCell } from '../../src/reports/csv';

it.each([
  ['=HYPERLINK("http://x.example","pay")', `'=HYPERLINK("http://x.example","pay")`],
  ['+256772123456', `'+256772123456`],
  ['-2+3+cmd|\' /C calc\'!A0', `'-2+3+cmd|' /C calc'!A0`],
  ['@SUM(1+1)*cmd', `'@SUM(1+1)*cmd`],
  ['\t=1+1', `'\t=1+1`],
  ['\r=1+1', `'\r=1+1`],
])('makes %j inert', (text, cell) => {
  expect(textCell(text)).toBe(cell);
});

it.each(['Okello Transport', "'quoted", 'a=b', 'x-y', '256772123456', ''])('leaves %j as it is', (text) => {
  expect(textCell(text)).toBe(text);
});

it('keeps an empty value empty', () => {
  expect(textCell(null)).toBeNull();
});
