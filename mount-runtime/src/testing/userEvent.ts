import userEventLib, { PointerEventsCheckLevel } from '@testing-library/user-event';

/** A user without typing delays; antd leaves `pointer-events: none` behind in jsdom, so that check is off. */
export const userEvent = userEventLib.setup({
  delay: null,
  pointerEventsCheck: PointerEventsCheckLevel.Never,
});
