export declare function deviceId(factory?: IDBFactory): Promise<string>;
