public enum Fixtures {}
