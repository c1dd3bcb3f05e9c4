export declare const ROOT: string;
export declare const BUILD_DIR: string;
export declare const STAMP: string;
export declare function sourceHash(): string;
export declare function isBuildCurrent(): boolean;
