package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Person (resource people) is an irregular noun.
// +kubebuilder:object:root=true
type Person struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// Child (resource children) takes an -en plural.
// +kubebuilder:object:root=true
type Child struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// Index (resource indices) takes the Latin -ices plural.
// +kubebuilder:object:root=true
type Index struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// Mouse (resource mice) changes its vowel in the plural.
// +kubebuilder:object:root=true
type Mouse struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// Cactus (resource cacti) takes the Latin -i plural.
// +kubebuilder:object:root=true
type Cactus struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// Quiz (resource quizzes) doubles its z before -es.
// +kubebuilder:object:root=true
type Quiz struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// Analysis (resource analyses) turns -is into -es.
// +kubebuilder:object:root=true
type Analysis struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// Matrix (resource matrices) turns -trix into -trices.
// +kubebuilder:object:root=true
type Matrix struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// Datum (resource data) turns -um into -a.
// +kubebuilder:object:root=true
type Datum struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// Leaf (resource leaves) turns -f into -ves.
// +kubebuilder:object:root=true
type Leaf struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// Knife (resource knives) turns -fe into -ves.
// +kubebuilder:object:root=true
type Knife struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// Goose (resource geese) changes its vowels in the plural.
// +kubebuilder:object:root=true
type Goose struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// Series (resource series) is the same in the plural.
// +kubebuilder:object:root=true
type Series struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// Species (resource species) is the same in the plural.
// +kubebuilder:object:root=true
type Species struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// Sheep (resource sheep) is the same in the plural.
// +kubebuilder:object:root=true
type Sheep struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// Fish (resource fish) is the same in the plural.
// +kubebuilder:object:root=true
type Fish struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// Criterion (resource criteria) turns -on into -a.
// +kubebuilder:object:root=true
type Criterion struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// Vertex (resource vertices) turns -ex into -ices.
// +kubebuilder:object:root=true
type Vertex struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// Memcached (resource memcacheds) just adds an s.
// +kubebuilder:object:root=true
type Memcached struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// Policy (resource policies) turns a y after a consonant into -ies.
// +kubebuilder:object:root=true
type Policy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// Gateway (resource gateways) keeps a y after a vowel.
// +kubebuilder:object:root=true
type Gateway struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// Box (resource boxes) adds -es after an x.
// +kubebuilder:object:root=true
type Box struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// Proxy (resource proxies) turns a y after a consonant into -ies.
// +kubebuilder:object:root=true
type Proxy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// Endpoints (resource endpoints) already ends in s and stays as it is.
// +kubebuilder:object:root=true
type Endpoints struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// Address (resource addresses) adds -es after ss.
// +kubebuilder:object:root=true
type Address struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// ClusterPolicy (resource clusterpolicies) inflects only its last word, Policy.
// +kubebuilder:object:root=true
type ClusterPolicy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// SalesPerson (resource salespeople) inflects its last word Person irregularly.
// +kubebuilder:object:root=true
type SalesPerson struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// DataIndex (resource dataindices) inflects its last word Index irregularly.
// +kubebuilder:object:root=true
type DataIndex struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// FishTank (resource fishtanks) ends in a regular word, whatever its first word is.
// +kubebuilder:object:root=true
type FishTank struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// BigMouse (resource bigmice) inflects its last word Mouse irregularly.
// +kubebuilder:object:root=true
type BigMouse struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// HTTPRoute (resource httproutes) starts with an acronym and ends in a regular word.
// +kubebuilder:object:root=true
type HTTPRoute struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// XYPerson (resource xypersons) is a single word to flect, so Person is not seen.
// +kubebuilder:object:root=true
type XYPerson struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}

// ZoneDns (resource zonednsdnses) ends in a mixed-case acronym, which flect appends to.
// +kubebuilder:object:root=true
type ZoneDns struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Size is a small number.
	// +kubebuilder:validation:Minimum=0
	// +optional
	Size int32 `json:"size,omitempty"`
}
