/** The small part of neo-blessed (a maintained fork of blessed, no types of its own) that `coord top` uses. */
declare module 'neo-blessed' {
  interface Key {
    name?: string;
    full: string;
    ctrl?: boolean;
  }
  interface Position {
    top?: number | string;
    left?: number | string;
    right?: number | string;
    bottom?: number | string;
    width?: number | string;
    height?: number | string;
  }
  interface ElementOptions extends Position {
    parent?: Node;
    content?: string;
    tags?: boolean;
    border?: 'line' | { type: 'line' };
    label?: string;
    wrap?: boolean;
    hidden?: boolean;
    scrollable?: boolean;
    alwaysScroll?: boolean;
    keys?: boolean;
    vi?: boolean;
    inputOnFocus?: boolean;
    style?: Record<string, unknown>;
    items?: string[];
  }
  interface Node {
    screen: Screen;
  }
  interface Element extends Node {
    width: number;
    height: number;
    top: number | string;
    left: number | string;
    hidden: boolean;
    setContent(text: string): void;
    setLabel(text: string): void;
    show(): void;
    hide(): void;
    focus(): void;
    destroy(): void;
    setFront(): void;
    scroll(offset: number): void;
    setScroll(offset: number): void;
    setScrollPerc(p: number): void;
    on(event: string, fn: (...args: never[]) => void): void;
    key(keys: string | string[], fn: (ch: string, key: Key) => void): void;
  }
  interface Textbox extends Element {
    value: string;
    setValue(v: string): void;
    readInput(cb: (err: unknown, value: string | null) => void): void;
    cancel(): void;
  }
  interface List extends Element {
    selected: number;
    select(i: number): void;
    setItems(items: string[]): void;
  }
  interface Screen extends Node {
    width: number;
    height: number;
    render(): void;
    destroy(): void;
    append(el: Element): void;
    key(keys: string | string[], fn: (ch: string, key: Key) => void): void;
    on(event: 'keypress', fn: (ch: string | undefined, key: Key) => void): void;
    on(event: 'resize', fn: () => void): void;
    on(event: string, fn: (...args: never[]) => void): void;
    saveFocus(): void;
    restoreFocus(): void;
    program: { hideCursor(): void; showCursor(): void; tput: { unicode: boolean; brokenACS: boolean } };
  }
  interface ScreenOptions {
    smartCSR?: boolean;
    fullUnicode?: boolean;
    autoPadding?: boolean;
    warnings?: boolean;
    title?: string;
    input?: NodeJS.ReadableStream;
    output?: NodeJS.WritableStream;
    terminal?: string;
    forceUnicode?: boolean;
    dockBorders?: boolean;
  }
  const blessed: {
    screen(opts?: ScreenOptions): Screen;
    box(opts?: ElementOptions): Element;
    textbox(opts?: ElementOptions): Textbox;
    list(opts?: ElementOptions): List;
  };
  export default blessed;
  export type { Element, Key, List, Screen, Textbox };
}
