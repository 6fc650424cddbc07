/** SHA-256 of a text's UTF-8 bytes, as lowercase hex. */
export declare function sha256Hex(text: string): Promise<string>;
