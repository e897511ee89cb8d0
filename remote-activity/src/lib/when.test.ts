import { capitalised, describeWhen } from './when.js';

const NOW = Date.parse('2026-03-07T12:00:00.000Z');
const ago = (ms: number) => new Date(NOW - ms).toISOString();
const spaced = (text: string) => text.replace(/\s/g, ' ');

describe('describeWhen', () => {
  it('says "just now" within the minute, and for a clock a little ahead', () => {
    expect(describeWhen(ago(30_000), NOW)).toBe('just now');
    expect(describeWhen(ago(-5_000), NOW)).toBe('just now');
  });

  it('counts minutes, then hours, within a day', () => {
    expect(describeWhen(ago(60_000), NOW)).toBe('1 minute ago');
    expect(describeWhen(ago(59 * 60_000), NOW)).toBe('59 minutes ago');
    expect(describeWhen(ago(3 * 3_600_000 + 59_000), NOW)).toBe('3 hours ago');
  });

  it('gives the date and time from a day on, in the time zone asked', () => {
    expect(spaced(describeWhen('2026-03-01T10:15:00.000Z', NOW, 'UTC'))).toBe('Mar 1, 2026, 10:15 AM');
    expect(spaced(describeWhen('2026-03-01T10:15:00.000Z', NOW, 'Asia/Tokyo'))).toBe('Mar 1, 2026, 7:15 PM');
  });

  it('says nothing of a date it cannot read', () => {
    expect(describeWhen('yesterday', NOW)).toBe('');
  });

  it('capitalises the first letter only', () => {
    expect(capitalised('just now')).toBe('Just now');
    expect(capitalised('')).toBe('');
  });
});
